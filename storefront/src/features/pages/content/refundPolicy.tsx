import type { DocumentTranslations } from '../DocumentPage';

export const refundPolicy: DocumentTranslations = {
  en: {
    intro: 'We want every purchase on Cliffhanger to feel fair. This policy covers coin packs and VIP subscriptions bought on this website. All prices are in US dollars.',
    sections: [
      { heading: 'Coins', body: <p>Coins you have not spent can be refunded within 14 days of purchase. Coins already used to unlock episodes cannot be refunded, because the episodes stay unlocked for you.</p> },
      { heading: 'VIP subscriptions', body: <p>Your membership renews automatically at the end of each period. Cancel at any time from your account page to avoid future charges; you keep VIP access until the end of the period you paid for. If you forgot to cancel, ask us within 7 days of a renewal and we will refund it if you have not watched locked episodes since.</p> },
      { heading: 'Technical problems', body: <p>If an episode you paid for does not play, contact us with the series name and episode number. We will fix it, return the coins or refund the purchase.</p> },
      { heading: 'How refunds are paid', body: <p>Refunds go back to the card you paid with, usually within 5 to 10 business days depending on your bank.</p> },
    ],
  },
  es: {
    intro: 'Queremos que cada compra en Cliffhanger sea justa. Esta política cubre los paquetes de monedas y las suscripciones VIP compradas en este sitio web. Todos los precios están en dólares estadounidenses.',
    sections: [
      { heading: 'Monedas', body: <p>Las monedas que no hayas gastado se pueden reembolsar en un plazo de 14 días desde la compra. Las monedas ya usadas para desbloquear episodios no se pueden reembolsar, porque esos episodios siguen desbloqueados para ti.</p> },
      { heading: 'Suscripciones VIP', body: <p>Tu membresía se renueva automáticamente al final de cada período. Cancélala cuando quieras desde la página de tu cuenta para evitar cargos futuros; conservas el acceso VIP hasta el final del período que pagaste. Si olvidaste cancelarla, escríbenos en un plazo de 7 días desde la renovación y te la reembolsaremos si no has visto episodios bloqueados desde entonces.</p> },
      { heading: 'Problemas técnicos', body: <p>Si un episodio que pagaste no se reproduce, contáctanos indicando el nombre de la serie y el número del episodio. Lo solucionaremos, te devolveremos las monedas o te reembolsaremos la compra.</p> },
      { heading: 'Cómo se pagan los reembolsos', body: <p>Los reembolsos se abonan en la tarjeta con la que pagaste, normalmente en un plazo de 5 a 10 días hábiles, según tu banco.</p> },
    ],
  },
  fy: {
    intro: 'Nous voulons que chaque achat sur Cliffhanger soit équitable. Cette politique couvre les packs de pièces et les abonnements VIP achetés sur ce site. Tous les prix sont indiqués en dollars américains.',
    sections: [
      { heading: 'Pièces', body: <p>Les pièces que vous n’avez pas dépensées peuvent être remboursées dans les 14 jours suivant l’achat. Les pièces déjà utilisées pour débloquer des épisodes ne sont pas remboursables, car ces épisodes restent débloqués pour vous.</p> },
      { heading: 'Abonnements VIP', body: <p>Votre abonnement se renouvelle automatiquement à la fin de chaque période. Résiliez-le à tout moment depuis la page de votre compte pour éviter les prélèvements futurs ; vous conservez l’accès VIP jusqu’à la fin de la période payée. Si vous avez oublié de résilier, contactez-nous dans les 7 jours suivant un renouvellement et nous vous le rembourserons si vous n’avez pas regardé d’épisodes verrouillés depuis.</p> },
      { heading: 'Problèmes techniques', body: <p>Si un épisode que vous avez payé ne se lance pas, contactez-nous en indiquant le nom de la série et le numéro de l’épisode. Nous corrigerons le problème, vous rendrons les pièces ou rembourserons l’achat.</p> },
      { heading: 'Versement des remboursements', body: <p>Les remboursements sont crédités sur la carte utilisée pour le paiement, généralement sous 5 à 10 jours ouvrés selon votre banque.</p> },
    ],
  },
  dy: {
    intro: 'Jeder Kauf bei Cliffhanger soll sich fair anfühlen. Diese Richtlinie gilt für Münzpakete und VIP-Abos, die auf dieser Website gekauft wurden. Alle Preise sind in US-Dollar angegeben.',
    sections: [
      { heading: 'Münzen', body: <p>Münzen, die du noch nicht ausgegeben hast, können innerhalb von 14 Tagen nach dem Kauf erstattet werden. Münzen, mit denen du bereits Folgen freigeschaltet hast, können nicht erstattet werden, weil die Folgen für dich freigeschaltet bleiben.</p> },
      { heading: 'VIP-Abos', body: <p>Deine Mitgliedschaft verlängert sich am Ende jedes Zeitraums automatisch. Kündige jederzeit auf deiner Kontoseite, um künftige Abbuchungen zu vermeiden; den VIP-Zugang behältst du bis zum Ende des bezahlten Zeitraums. Falls du das Kündigen vergessen hast, melde dich innerhalb von 7 Tagen nach einer Verlängerung bei uns, und wir erstatten sie, sofern du seitdem keine gesperrten Folgen angesehen hast.</p> },
      { heading: 'Technische Probleme', body: <p>Wenn eine bezahlte Folge nicht abgespielt wird, kontaktiere uns mit dem Namen der Serie und der Nummer der Folge. Wir beheben das Problem, geben dir die Münzen zurück oder erstatten den Kauf.</p> },
      { heading: 'Wie Erstattungen ausgezahlt werden', body: <p>Erstattungen gehen auf die Karte zurück, mit der du bezahlt hast, in der Regel innerhalb von 5 bis 10 Werktagen, je nach Bank.</p> },
    ],
  },
  pt: {
    intro: 'Queremos que cada compra no Cliffhanger seja justa. Esta política abrange os pacotes de moedas e as assinaturas VIP compradas neste site. Todos os preços estão em dólares americanos.',
    sections: [
      { heading: 'Moedas', body: <p>As moedas que você não gastou podem ser reembolsadas em até 14 dias após a compra. As moedas já usadas para desbloquear episódios não podem ser reembolsadas, porque esses episódios continuam desbloqueados para você.</p> },
      { heading: 'Assinaturas VIP', body: <p>Sua assinatura é renovada automaticamente ao final de cada período. Cancele quando quiser na página da sua conta para evitar cobranças futuras; você mantém o acesso VIP até o fim do período pago. Se esqueceu de cancelar, fale conosco em até 7 dias após a renovação e faremos o reembolso se você não tiver assistido a episódios bloqueados desde então.</p> },
      { heading: 'Problemas técnicos', body: <p>Se um episódio que você pagou não for reproduzido, entre em contato conosco informando o nome da série e o número do episódio. Vamos corrigir o problema, devolver as moedas ou reembolsar a compra.</p> },
      { heading: 'Como os reembolsos são pagos', body: <p>Os reembolsos são devolvidos ao cartão usado no pagamento, normalmente em 5 a 10 dias úteis, dependendo do seu banco.</p> },
    ],
  },
};
