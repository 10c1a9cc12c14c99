import { DocumentPage } from './DocumentPage';

export function ServiceAgreementPage() {
  return (
    <DocumentPage
      title="footer.terms"
      updated="November 1, 2026"
      intro={<p>These terms are the agreement between you and Cliffhanger when you use this website. By watching, creating an account or buying coins or a subscription, you accept them.</p>}
      sections={[
        {
          heading: 'Your account',
          body: <p>You may watch as a guest or register with your email. Keep your password private; you are responsible for activity on your account. You must be at least 13 years old, and old enough to make purchases where you live.</p>,
        },
        {
          heading: 'Watching',
          body: <p>We grant you a personal, non-transferable right to stream the shows for private viewing. Downloading, recording, re-uploading or sharing paid episodes is not allowed.</p>,
        },
        {
          heading: 'Coins, unlocks and VIP',
          body: <p>The first episodes of a series are free. Later episodes are unlocked with coins or included with VIP. Coins have no cash value and cannot be transferred. A VIP membership renews every period until you cancel it; canceling stops future charges and access ends when the paid period ends.</p>,
        },
        {
          heading: 'Acceptable use',
          body: <p>Do not attack, overload or scrape the service, get around locks or payments, or use someone else’s account or card.</p>,
        },
        {
          heading: 'Changes and termination',
          body: <p>We may change the catalog, prices or these terms; important changes are announced before they apply. We may suspend accounts that break these terms. You may stop using Cliffhanger at any time.</p>,
        },
        {
          heading: 'Liability',
          body: <p>The service is provided as is. To the extent the law allows, our liability is limited to the amount you paid us in the 12 months before a claim.</p>,
        },
      ]}
    />
  );
}
