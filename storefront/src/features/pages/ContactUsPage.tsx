import { DocumentPage } from './DocumentPage';

export function ContactUsPage() {
  return (
    <DocumentPage
      title="footer.contact"
      updated="November 1, 2026"
      intro={<p>We are here to help, every day. Most questions are answered within one business day.</p>}
      sections={[
        {
          heading: 'Help with your account or a payment',
          body: <p>Email <a href="mailto:support@cliffhanger.example">support@cliffhanger.example</a>. Include the email of your account and, for payments, the date and amount of the charge.</p>,
        },
        {
          heading: 'Privacy requests',
          body: <p>Email <a href="mailto:privacy@cliffhanger.example">privacy@cliffhanger.example</a> to access, export or delete your data.</p>,
        },
        {
          heading: 'Content and copyright',
          body: <p>Email <a href="mailto:content@cliffhanger.example">content@cliffhanger.example</a> to report a series or a rights issue.</p>,
        },
        {
          heading: 'Studios and partners',
          body: <p>Email <a href="mailto:partners@cliffhanger.example">partners@cliffhanger.example</a> to license your series to Cliffhanger.</p>,
        },
      ]}
    />
  );
}
