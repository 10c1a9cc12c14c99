import { refundPolicy } from './content/refundPolicy';
import { DocumentPage } from './DocumentPage';

export function RefundPolicyPage() {
  return <DocumentPage title="footer.refund" updated="2026-11-01" content={refundPolicy} />;
}
