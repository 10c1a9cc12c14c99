import { contentPolicy } from './content/contentPolicy';
import { DocumentPage } from './DocumentPage';

export function ContentPolicyPage() {
  return <DocumentPage title="footer.content" updated="2026-11-01" content={contentPolicy} />;
}
