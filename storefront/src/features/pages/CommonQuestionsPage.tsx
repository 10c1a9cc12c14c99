import { DocumentPage } from './DocumentPage';

const QUESTIONS: Array<[string, string]> = [
  ['What is Cliffhanger?', 'A streaming site for short dramas: complete series told in one- to three-minute episodes, made to watch on your phone.'],
  ['Do I need an account?', 'No. You can start watching as a guest. Signing up keeps your list, history and coins safe and available on every device; everything you did as a guest comes with you.'],
  ['Why are some episodes locked?', 'The first episodes of every series are free. Later episodes are unlocked one at a time with coins, or all at once with a VIP membership.'],
  ['How do coins work?', 'Buy a coin pack on the Coins & VIP page, then tap a locked episode and unlock it. An unlocked episode stays unlocked for your account forever.'],
  ['How do I cancel VIP?', 'Open Me, then Account details, and choose Cancel subscription. You keep VIP until the end of the period you paid for and will not be charged again.'],
  ['The video does not play. What can I do?', 'Check your connection and reload the page. The player adapts the quality to your connection; if an episode still fails, contact us with the series name and episode number.'],
  ['How do I change the language?', 'Use the language chooser in the header or on the Me page. The site remembers your choice.'],
  ['I forgot my password.', 'Choose “Forgot password?” on the log-in page. We email you a link that lets you set a new password within 30 minutes.'],
];

export function CommonQuestionsPage() {
  return (
    <DocumentPage
      title="footer.faq"
      updated="November 1, 2026"
      intro={<p>Answers to the questions viewers ask us most.</p>}
      sections={QUESTIONS.map(([heading, answer]) => ({ heading, body: <p>{answer}</p> }))}
    />
  );
}
