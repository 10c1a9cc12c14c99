import { contactUs } from './content/contactUs';
import { DocumentPage } from './DocumentPage';

export function ContactUsPage() {
  return <DocumentPage title="footer.contact" updated="2026-11-01" content={contactUs} />;
}
