import type { DocumentTranslations } from '../DocumentPage';

function Mail({ to }: { to: string }) {
  const address = `${to}@cliffhanger.example`;
  return <a href={`mailto:${address}`}>{address}</a>;
}

const support = <Mail to="support" />;
const privacy = <Mail to="privacy" />;
const content = <Mail to="content" />;
const partners = <Mail to="partners" />;

export const contactUs: DocumentTranslations = {
  en: {
    intro: 'We are here to help, every day. Most questions are answered within one business day.',
    sections: [
      { heading: 'Help with your account or a payment', body: <p>Email {support}. Include the email of your account and, for payments, the date and amount of the charge.</p> },
      { heading: 'Privacy requests', body: <p>Email {privacy} to access, export or delete your data.</p> },
      { heading: 'Content and copyright', body: <p>Email {content} to report a series or a rights issue.</p> },
      { heading: 'Studios and partners', body: <p>Email {partners} to license your series to Cliffhanger.</p> },
    ],
  },
  es: {
    intro: 'Estamos aquí para ayudarte, todos los días. La mayoría de las consultas se responden en un día hábil.',
    sections: [
      { heading: 'Ayuda con tu cuenta o un pago', body: <p>Escribe a {support}. Indica el correo de tu cuenta y, para pagos, la fecha y el importe del cargo.</p> },
      { heading: 'Solicitudes de privacidad', body: <p>Escribe a {privacy} para acceder a tus datos, exportarlos o eliminarlos.</p> },
      { heading: 'Contenido y derechos de autor', body: <p>Escribe a {content} para denunciar una serie o un problema de derechos.</p> },
      { heading: 'Estudios y socios', body: <p>Escribe a {partners} para licenciar tus series a Cliffhanger.</p> },
    ],
  },
  fy: {
    intro: 'Nous sommes là pour vous aider, tous les jours. La plupart des questions reçoivent une réponse sous un jour ouvré.',
    sections: [
      { heading: 'Aide pour votre compte ou un paiement', body: <p>Écrivez à {support}. Indiquez l’adresse e-mail de votre compte et, pour un paiement, la date et le montant du prélèvement.</p> },
      { heading: 'Demandes relatives à la confidentialité', body: <p>Écrivez à {privacy} pour accéder à vos données, les exporter ou les supprimer.</p> },
      { heading: 'Contenus et droits d’auteur', body: <p>Écrivez à {content} pour signaler une série ou un problème de droits.</p> },
      { heading: 'Studios et partenaires', body: <p>Écrivez à {partners} pour proposer vos séries sous licence à Cliffhanger.</p> },
    ],
  },
  dy: {
    intro: 'Wir sind jeden Tag für dich da. Die meisten Fragen beantworten wir innerhalb eines Werktags.',
    sections: [
      { heading: 'Hilfe zu deinem Konto oder einer Zahlung', body: <p>Schreib an {support}. Gib die E-Mail-Adresse deines Kontos an und bei Zahlungen das Datum und den Betrag der Abbuchung.</p> },
      { heading: 'Datenschutzanfragen', body: <p>Schreib an {privacy}, um Auskunft über deine Daten zu erhalten, sie zu exportieren oder zu löschen.</p> },
      { heading: 'Inhalte und Urheberrecht', body: <p>Schreib an {content}, um eine Serie oder ein Rechteproblem zu melden.</p> },
      { heading: 'Studios und Partner', body: <p>Schreib an {partners}, um deine Serien an Cliffhanger zu lizenzieren.</p> },
    ],
  },
  pt: {
    intro: 'Estamos aqui para ajudar, todos os dias. A maioria das perguntas é respondida em até um dia útil.',
    sections: [
      { heading: 'Ajuda com sua conta ou um pagamento', body: <p>Envie um e-mail para {support}. Informe o e-mail da sua conta e, para pagamentos, a data e o valor da cobrança.</p> },
      { heading: 'Solicitações de privacidade', body: <p>Envie um e-mail para {privacy} para acessar, exportar ou excluir seus dados.</p> },
      { heading: 'Conteúdo e direitos autorais', body: <p>Envie um e-mail para {content} para denunciar uma série ou um problema de direitos.</p> },
      { heading: 'Estúdios e parceiros', body: <p>Envie um e-mail para {partners} para licenciar suas séries para o Cliffhanger.</p> },
    ],
  },
};
