import { serviceAgreement } from './content/serviceAgreement';
import { DocumentPage } from './DocumentPage';

export function ServiceAgreementPage() {
  return <DocumentPage title="footer.terms" updated="2026-11-01" content={serviceAgreement} />;
}
