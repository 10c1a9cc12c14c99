import { DocumentPage } from './DocumentPage';

export function RefundPolicyPage() {
  return (
    <DocumentPage
      title="footer.refund"
      updated="November 1, 2026"
      intro={<p>We want every purchase on Cliffhanger to feel fair. This policy covers coin packs and VIP subscriptions bought on this website. All prices are in US dollars.</p>}
      sections={[
        {
          heading: 'Coins',
          body: <p>Coins you have not spent can be refunded within 14 days of purchase. Coins already used to unlock episodes cannot be refunded, because the episodes stay unlocked for you.</p>,
        },
        {
          heading: 'VIP subscriptions',
          body: <p>Your membership renews automatically at the end of each period. Cancel at any time from your account page to avoid future charges; you keep VIP access until the end of the period you paid for. If you forgot to cancel, ask us within 7 days of a renewal and we will refund it if you have not watched locked episodes since.</p>,
        },
        {
          heading: 'Technical problems',
          body: <p>If an episode you paid for does not play, contact us with the series name and episode number. We will fix it, return the coins or refund the purchase.</p>,
        },
        {
          heading: 'How refunds are paid',
          body: <p>Refunds go back to the card you paid with, usually within 5 to 10 business days depending on your bank.</p>,
        },
      ]}
    />
  );
}
