import { privacyPolicy } from './content/privacyPolicy';
import { DocumentPage } from './DocumentPage';

export function PrivacyPolicyPage() {
  return <DocumentPage title="footer.privacy" updated="2026-11-01" content={privacyPolicy} />;
}
