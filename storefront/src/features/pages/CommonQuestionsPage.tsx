import { commonQuestions } from './content/commonQuestions';
import { DocumentPage } from './DocumentPage';

export function CommonQuestionsPage() {
  return <DocumentPage title="footer.faq" updated="2026-11-01" content={commonQuestions} />;
}
