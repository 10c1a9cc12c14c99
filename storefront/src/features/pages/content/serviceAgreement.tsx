import type { DocumentTranslations } from '../DocumentPage';

export const serviceAgreement: DocumentTranslations = {
  en: {
    intro: 'These terms are the agreement between you and Cliffhanger when you use this website. By watching, creating an account or buying coins or a subscription, you accept them.',
    sections: [
      { heading: 'Your account', body: <p>You may watch as a guest or register with your email. Keep your password private; you are responsible for activity on your account. You must be at least 13 years old, and old enough to make purchases where you live.</p> },
      { heading: 'Watching', body: <p>We grant you a personal, non-transferable right to stream the shows for private viewing. Downloading, recording, re-uploading or sharing paid episodes is not allowed.</p> },
      { heading: 'Coins, unlocks and VIP', body: <p>The first episodes of a series are free. Later episodes are unlocked with coins or included with VIP. Coins have no cash value and cannot be transferred. A VIP membership renews every period until you cancel it; canceling stops future charges and access ends when the paid period ends.</p> },
      { heading: 'Acceptable use', body: <p>Do not attack, overload or scrape the service, get around locks or payments, or use someone else’s account or card.</p> },
      { heading: 'Changes and termination', body: <p>We may change the catalog, prices or these terms; important changes are announced before they apply. We may suspend accounts that break these terms. You may stop using Cliffhanger at any time.</p> },
      { heading: 'Liability', body: <p>The service is provided as is. To the extent the law allows, our liability is limited to the amount you paid us in the 12 months before a claim.</p> },
    ],
  },
  es: {
    intro: 'Estos términos constituyen el acuerdo entre tú y Cliffhanger cuando usas este sitio web. Al ver contenido, crear una cuenta o comprar monedas o una suscripción, los aceptas.',
    sections: [
      { heading: 'Tu cuenta', body: <p>Puedes ver contenido como invitado o registrarte con tu correo electrónico. Mantén tu contraseña en privado; eres responsable de la actividad de tu cuenta. Debes tener al menos 13 años y la edad suficiente para realizar compras en tu país de residencia.</p> },
      { heading: 'Visualización', body: <p>Te concedemos un derecho personal e intransferible a ver las series en streaming para uso privado. No está permitido descargar, grabar, volver a subir ni compartir episodios de pago.</p> },
      { heading: 'Monedas, desbloqueos y VIP', body: <p>Los primeros episodios de una serie son gratuitos. Los episodios posteriores se desbloquean con monedas o están incluidos con VIP. Las monedas no tienen valor monetario y no se pueden transferir. Una membresía VIP se renueva en cada período hasta que la canceles; al cancelarla se detienen los cargos futuros y el acceso termina cuando finaliza el período pagado.</p> },
      { heading: 'Uso aceptable', body: <p>No ataques, sobrecargues ni extraigas datos del servicio de forma automatizada, no eludas los bloqueos ni los pagos, y no uses la cuenta ni la tarjeta de otra persona.</p> },
      { heading: 'Cambios y terminación', body: <p>Podemos cambiar el catálogo, los precios o estos términos; los cambios importantes se anuncian antes de aplicarse. Podemos suspender las cuentas que incumplan estos términos. Puedes dejar de usar Cliffhanger en cualquier momento.</p> },
      { heading: 'Responsabilidad', body: <p>El servicio se ofrece tal cual. En la medida en que la ley lo permita, nuestra responsabilidad se limita al importe que nos hayas pagado en los 12 meses anteriores a una reclamación.</p> },
    ],
  },
  fy: {
    intro: 'Les présentes conditions constituent l’accord entre vous et Cliffhanger lorsque vous utilisez ce site. En regardant des séries, en créant un compte ou en achetant des pièces ou un abonnement, vous les acceptez.',
    sections: [
      { heading: 'Votre compte', body: <p>Vous pouvez regarder en tant qu’invité ou vous inscrire avec votre adresse e-mail. Gardez votre mot de passe secret ; vous êtes responsable de l’activité de votre compte. Vous devez avoir au moins 13 ans et l’âge requis pour effectuer des achats là où vous vivez.</p> },
      { heading: 'Visionnage', body: <p>Nous vous accordons un droit personnel et non transférable de regarder les séries en streaming dans un cadre privé. Il est interdit de télécharger, d’enregistrer, de remettre en ligne ou de partager des épisodes payants.</p> },
      { heading: 'Pièces, déblocages et VIP', body: <p>Les premiers épisodes d’une série sont gratuits. Les épisodes suivants se débloquent avec des pièces ou sont inclus avec le VIP. Les pièces n’ont aucune valeur monétaire et ne peuvent pas être transférées. Un abonnement VIP se renouvelle à chaque période jusqu’à sa résiliation ; la résiliation met fin aux prélèvements futurs et l’accès prend fin à l’issue de la période payée.</p> },
      { heading: 'Utilisation acceptable', body: <p>N’attaquez pas le service, ne le surchargez pas et n’en extrayez pas le contenu de manière automatisée, ne contournez pas les verrous ou les paiements, et n’utilisez pas le compte ou la carte d’une autre personne.</p> },
      { heading: 'Modifications et résiliation', body: <p>Nous pouvons modifier le catalogue, les prix ou les présentes conditions ; les changements importants sont annoncés avant leur entrée en vigueur. Nous pouvons suspendre les comptes qui enfreignent ces conditions. Vous pouvez cesser d’utiliser Cliffhanger à tout moment.</p> },
      { heading: 'Responsabilité', body: <p>Le service est fourni en l’état. Dans les limites permises par la loi, notre responsabilité est limitée au montant que vous nous avez versé au cours des 12 mois précédant une réclamation.</p> },
    ],
  },
  dy: {
    intro: 'Diese Bedingungen sind die Vereinbarung zwischen dir und Cliffhanger, wenn du diese Website nutzt. Indem du Serien ansiehst, ein Konto erstellst oder Münzen oder ein Abo kaufst, akzeptierst du sie.',
    sections: [
      { heading: 'Dein Konto', body: <p>Du kannst als Gast schauen oder dich mit deiner E-Mail-Adresse registrieren. Halte dein Passwort geheim; du bist für die Aktivitäten in deinem Konto verantwortlich. Du musst mindestens 13 Jahre alt sein und an deinem Wohnort alt genug, um Käufe zu tätigen.</p> },
      { heading: 'Ansehen', body: <p>Wir gewähren dir ein persönliches, nicht übertragbares Recht, die Serien für den privaten Gebrauch zu streamen. Das Herunterladen, Aufzeichnen, erneute Hochladen oder Teilen kostenpflichtiger Folgen ist nicht erlaubt.</p> },
      { heading: 'Münzen, Freischaltungen und VIP', body: <p>Die ersten Folgen einer Serie sind kostenlos. Spätere Folgen werden mit Münzen freigeschaltet oder sind in VIP enthalten. Münzen haben keinen Geldwert und sind nicht übertragbar. Eine VIP-Mitgliedschaft verlängert sich jeden Zeitraum, bis du sie kündigst; die Kündigung beendet künftige Abbuchungen, und der Zugang endet mit dem bezahlten Zeitraum.</p> },
      { heading: 'Zulässige Nutzung', body: <p>Greife den Dienst nicht an, überlaste ihn nicht und lies ihn nicht automatisiert aus, umgehe keine Sperren oder Zahlungen und nutze nicht das Konto oder die Karte einer anderen Person.</p> },
      { heading: 'Änderungen und Beendigung', body: <p>Wir können den Katalog, die Preise oder diese Bedingungen ändern; wichtige Änderungen werden angekündigt, bevor sie gelten. Wir können Konten sperren, die gegen diese Bedingungen verstoßen. Du kannst die Nutzung von Cliffhanger jederzeit beenden.</p> },
      { heading: 'Haftung', body: <p>Der Dienst wird so bereitgestellt, wie er ist. Soweit gesetzlich zulässig, ist unsere Haftung auf den Betrag begrenzt, den du uns in den 12 Monaten vor einem Anspruch gezahlt hast.</p> },
    ],
  },
  pt: {
    intro: 'Estes termos são o acordo entre você e o Cliffhanger quando você usa este site. Ao assistir, criar uma conta ou comprar moedas ou uma assinatura, você os aceita.',
    sections: [
      { heading: 'Sua conta', body: <p>Você pode assistir como visitante ou se cadastrar com seu e-mail. Mantenha sua senha em sigilo; você é responsável pela atividade na sua conta. Você precisa ter pelo menos 13 anos e idade suficiente para fazer compras no lugar onde mora.</p> },
      { heading: 'Assistir', body: <p>Concedemos a você um direito pessoal e intransferível de assistir às séries por streaming para uso privado. Não é permitido baixar, gravar, reenviar ou compartilhar episódios pagos.</p> },
      { heading: 'Moedas, desbloqueios e VIP', body: <p>Os primeiros episódios de uma série são gratuitos. Os episódios seguintes são desbloqueados com moedas ou estão incluídos no VIP. As moedas não têm valor em dinheiro e não podem ser transferidas. Uma assinatura VIP é renovada a cada período até que você a cancele; o cancelamento interrompe as cobranças futuras e o acesso termina ao fim do período pago.</p> },
      { heading: 'Uso aceitável', body: <p>Não ataque, sobrecarregue ou faça raspagem de dados do serviço, não contorne bloqueios ou pagamentos e não use a conta ou o cartão de outra pessoa.</p> },
      { heading: 'Alterações e encerramento', body: <p>Podemos alterar o catálogo, os preços ou estes termos; as alterações importantes são anunciadas antes de entrarem em vigor. Podemos suspender contas que violem estes termos. Você pode deixar de usar o Cliffhanger a qualquer momento.</p> },
      { heading: 'Responsabilidade', body: <p>O serviço é fornecido no estado em que se encontra. Na medida permitida por lei, nossa responsabilidade se limita ao valor que você nos pagou nos 12 meses anteriores a uma reclamação.</p> },
    ],
  },
};
