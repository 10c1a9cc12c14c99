import { DocumentPage } from './DocumentPage';

export function PrivacyPolicyPage() {
  return (
    <DocumentPage
      title="footer.privacy"
      updated="November 1, 2026"
      intro={<p>This policy explains what Cliffhanger collects when you watch, how we use it and the choices you have. We collect only what we need to run the service, keep your account safe and pay the people who make the shows.</p>}
      sections={[
        {
          heading: 'What we collect',
          body: (
            <ul>
              <li><strong>Account data</strong>: your email address and a hash of your password. We never store your password itself.</li>
              <li><strong>Viewing data</strong>: the series in your list, the episodes you watch and where you stopped, so you can pick up where you left off.</li>
              <li><strong>Purchase data</strong>: your orders, coins and subscription status. Card details go directly to our payment provider; we receive only a token and the last four digits.</li>
              <li><strong>Device and attribution data</strong>: an anonymous visitor token, your browser language, and the campaign identifiers (such as fbclid or ttclid) of the advertisement that brought you here.</li>
            </ul>
          ),
        },
        {
          heading: 'How we use it',
          body: <p>To stream episodes, remember your progress, process payments and renewals, prevent fraud, measure which campaigns work and improve recommendations. We do not sell your personal data.</p>,
        },
        {
          heading: 'Advertising and analytics',
          body: <p>We count page views and purchases with our own analytics pixel. When our advertising partners (Meta, TikTok, Google, Bigo) are configured, we may share conversion events with them, linked to the campaign identifier of your visit, so they can measure their ads.</p>,
        },
        {
          heading: 'How long we keep it',
          body: <p>Account and viewing data are kept while your account is active. Guest data with no activity for 12 months is deleted. Payment records are kept as long as tax law requires.</p>,
        },
        {
          heading: 'Your rights',
          body: <p>You can access, correct, export or delete your data, and object to marketing, by writing to privacy@cliffhanger.example. We answer within 30 days.</p>,
        },
        {
          heading: 'Children',
          body: <p>Cliffhanger is not directed at children under 13, and we do not knowingly collect their data.</p>,
        },
      ]}
    />
  );
}
