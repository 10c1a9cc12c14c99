import type { DocumentContent, DocumentTranslations } from '../DocumentPage';

/** A FAQ document: each question is a section heading, its answer the section's paragraph. */
function faq(intro: string, questions: Array<[string, string]>): DocumentContent {
  return { intro, sections: questions.map(([heading, answer]) => ({ heading, body: <p>{answer}</p> })) };
}

export const commonQuestions: DocumentTranslations = {
  en: faq('Answers to the questions viewers ask us most.', [
    ['What is Cliffhanger?', 'A streaming site for short dramas: complete series told in one- to three-minute episodes, made to watch on your phone.'],
    ['Do I need an account?', 'No. You can start watching as a guest. Signing up keeps your list, history and coins safe and available on every device; everything you did as a guest comes with you.'],
    ['Why are some episodes locked?', 'The first episodes of every series are free. Later episodes are unlocked one at a time with coins, or all at once with a VIP membership.'],
    ['How do coins work?', 'Buy a coin pack on the Coins & VIP page, then tap a locked episode and unlock it. An unlocked episode stays unlocked for your account forever.'],
    ['How do I cancel VIP?', 'Open Me, then Account details, and choose Cancel subscription. You keep VIP until the end of the period you paid for and will not be charged again.'],
    ['The video does not play. What can I do?', 'Check your connection and reload the page. The player adapts the quality to your connection; if an episode still fails, contact us with the series name and episode number.'],
    ['How do I change the language?', 'Use the language chooser in the header or on the Me page. The site remembers your choice.'],
    ['I forgot my password.', 'Choose “Forgot password?” on the log-in page. We email you a link that lets you set a new password within 30 minutes.'],
  ]),
  es: faq('Respuestas a las preguntas que más nos hacen los espectadores.', [
    ['¿Qué es Cliffhanger?', 'Un sitio de streaming de microdramas: series completas contadas en episodios de uno a tres minutos, pensadas para verlas en el móvil.'],
    ['¿Necesito una cuenta?', 'No. Puedes empezar a ver como invitado. Al registrarte, tu lista, tu historial y tus monedas quedan a salvo y disponibles en todos tus dispositivos; todo lo que hiciste como invitado se conserva.'],
    ['¿Por qué algunos episodios están bloqueados?', 'Los primeros episodios de cada serie son gratuitos. Los siguientes se desbloquean de uno en uno con monedas, o todos a la vez con una membresía VIP.'],
    ['¿Cómo funcionan las monedas?', 'Compra un paquete de monedas en la página Monedas y VIP, luego toca un episodio bloqueado y desbloquéalo. Un episodio desbloqueado queda desbloqueado para tu cuenta para siempre.'],
    ['¿Cómo cancelo el VIP?', 'Abre Yo, luego Datos de la cuenta, y elige Cancelar suscripción. Conservas el VIP hasta el final del período que pagaste y no se te volverá a cobrar.'],
    ['El vídeo no se reproduce. ¿Qué puedo hacer?', 'Comprueba tu conexión y vuelve a cargar la página. El reproductor adapta la calidad a tu conexión; si un episodio sigue fallando, contáctanos indicando el nombre de la serie y el número del episodio.'],
    ['¿Cómo cambio el idioma?', 'Usa el selector de idioma de la cabecera o de la página Yo. El sitio recuerda tu elección.'],
    ['Olvidé mi contraseña.', 'Elige «¿Olvidaste tu contraseña?» en la página de inicio de sesión. Te enviaremos por correo un enlace para crear una contraseña nueva en un plazo de 30 minutos.'],
  ]),
  fy: faq('Les réponses aux questions que les spectateurs nous posent le plus souvent.', [
    ['Qu’est-ce que Cliffhanger ?', 'Un site de streaming de séries courtes : des séries complètes racontées en épisodes d’une à trois minutes, conçues pour être regardées sur votre téléphone.'],
    ['Ai-je besoin d’un compte ?', 'Non. Vous pouvez commencer à regarder en tant qu’invité. En vous inscrivant, votre liste, votre historique et vos pièces sont sauvegardés et accessibles sur tous vos appareils ; tout ce que vous avez fait en tant qu’invité vous suit.'],
    ['Pourquoi certains épisodes sont-ils verrouillés ?', 'Les premiers épisodes de chaque série sont gratuits. Les épisodes suivants se débloquent un par un avec des pièces, ou tous à la fois avec un abonnement VIP.'],
    ['Comment fonctionnent les pièces ?', 'Achetez un pack de pièces sur la page Pièces et VIP, puis touchez un épisode verrouillé pour le débloquer. Un épisode débloqué le reste pour toujours sur votre compte.'],
    ['Comment résilier le VIP ?', 'Ouvrez Moi, puis Détails du compte, et choisissez Annuler l’abonnement. Vous conservez le VIP jusqu’à la fin de la période payée et ne serez plus prélevé.'],
    ['La vidéo ne se lance pas. Que faire ?', 'Vérifiez votre connexion et rechargez la page. Le lecteur adapte la qualité à votre connexion ; si un épisode ne fonctionne toujours pas, contactez-nous en indiquant le nom de la série et le numéro de l’épisode.'],
    ['Comment changer de langue ?', 'Utilisez le sélecteur de langue dans l’en-tête ou sur la page Moi. Le site mémorise votre choix.'],
    ['J’ai oublié mon mot de passe.', 'Choisissez « Mot de passe oublié ? » sur la page de connexion. Nous vous envoyons par e-mail un lien qui vous permet de définir un nouveau mot de passe dans les 30 minutes.'],
  ]),
  dy: faq('Antworten auf die Fragen, die uns Zuschauer am häufigsten stellen.', [
    ['Was ist Cliffhanger?', 'Eine Streaming-Website für Kurzserien: komplette Serien, erzählt in Folgen von einer bis drei Minuten, gemacht zum Anschauen auf dem Handy.'],
    ['Brauche ich ein Konto?', 'Nein. Du kannst als Gast sofort loslegen. Mit einer Registrierung sind deine Liste, dein Verlauf und deine Münzen sicher und auf jedem Gerät verfügbar; alles, was du als Gast gemacht hast, wird übernommen.'],
    ['Warum sind manche Folgen gesperrt?', 'Die ersten Folgen jeder Serie sind kostenlos. Spätere Folgen werden einzeln mit Münzen freigeschaltet oder alle auf einmal mit einer VIP-Mitgliedschaft.'],
    ['Wie funktionieren Münzen?', 'Kauf ein Münzpaket auf der Seite Münzen & VIP, tippe dann auf eine gesperrte Folge und schalte sie frei. Eine freigeschaltete Folge bleibt für dein Konto für immer freigeschaltet.'],
    ['Wie kündige ich VIP?', 'Öffne Ich, dann Kontodaten, und wähle Abo kündigen. Du behältst VIP bis zum Ende des bezahlten Zeitraums, und es wird nichts mehr abgebucht.'],
    ['Das Video wird nicht abgespielt. Was kann ich tun?', 'Prüfe deine Verbindung und lade die Seite neu. Der Player passt die Qualität an deine Verbindung an; wenn eine Folge weiterhin nicht läuft, kontaktiere uns mit dem Namen der Serie und der Nummer der Folge.'],
    ['Wie ändere ich die Sprache?', 'Nutze die Sprachauswahl in der Kopfzeile oder auf der Seite Ich. Die Website merkt sich deine Wahl.'],
    ['Ich habe mein Passwort vergessen.', 'Wähle „Passwort vergessen?“ auf der Anmeldeseite. Wir schicken dir per E-Mail einen Link, mit dem du innerhalb von 30 Minuten ein neues Passwort festlegen kannst.'],
  ]),
  pt: faq('Respostas às perguntas que os espectadores mais nos fazem.', [
    ['O que é o Cliffhanger?', 'Um site de streaming de microdramas: séries completas contadas em episódios de um a três minutos, feitas para assistir no celular.'],
    ['Preciso de uma conta?', 'Não. Você pode começar a assistir como visitante. Ao se cadastrar, sua lista, seu histórico e suas moedas ficam seguros e disponíveis em todos os dispositivos; tudo o que você fez como visitante vem junto.'],
    ['Por que alguns episódios estão bloqueados?', 'Os primeiros episódios de cada série são gratuitos. Os episódios seguintes são desbloqueados um de cada vez com moedas, ou todos de uma vez com uma assinatura VIP.'],
    ['Como funcionam as moedas?', 'Compre um pacote de moedas na página Moedas e VIP, depois toque em um episódio bloqueado e desbloqueie-o. Um episódio desbloqueado continua desbloqueado na sua conta para sempre.'],
    ['Como cancelo o VIP?', 'Abra Eu, depois Dados da conta, e escolha Cancelar assinatura. Você mantém o VIP até o fim do período pago e não será cobrado novamente.'],
    ['O vídeo não é reproduzido. O que posso fazer?', 'Verifique sua conexão e recarregue a página. O player adapta a qualidade à sua conexão; se um episódio continuar falhando, entre em contato conosco informando o nome da série e o número do episódio.'],
    ['Como mudo o idioma?', 'Use o seletor de idioma no cabeçalho ou na página Eu. O site lembra a sua escolha.'],
    ['Esqueci minha senha.', 'Escolha “Esqueceu a senha?” na página de login. Enviaremos por e-mail um link que permite definir uma nova senha em até 30 minutos.'],
  ]),
};
