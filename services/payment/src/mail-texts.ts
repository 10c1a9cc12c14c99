import type { MailLanguage } from './schema.ts';

/**
 * The payment mails' words in the five interface languages (en, es, fy = French, dy = German, pt, as
 * the storefront names them). Values come in already formatted for the language (money, dates).
 */
export interface MailTexts {
  locale: string;
  receiptSubject: (title: string) => string;
  receiptThanks: string;
  coins: (coins: number, bonus: number) => string;
  vipUntil: (date: string, renews: boolean) => string;
  offerPaidBefore: string;
  order: string;
  paid: string;
  failedSubject: string;
  failedBody: (title: string, price: string, graceUntil: string, lastTry: string) => string;
  updateCard: string;
  reminderSubject: (date: string) => string;
  reminderBody: (title: string, price: string, date: string) => string;
  manage: string;
  refundSubject: (title: string) => string;
  refundBody: (title: string, price: string) => string;
}

export const mailTexts: Record<MailLanguage, MailTexts> = {
  en: {
    locale: 'en-US',
    receiptSubject: (title) => `Your Cliffhanger receipt: ${title}`,
    receiptThanks: 'Thank you for your purchase at Cliffhanger.',
    coins: (coins, bonus) => `Coins: ${coins}${bonus ? ` + ${bonus} bonus coins` : ''}`,
    vipUntil: (date, renews) => `VIP until: ${date}, ${renews ? 'then renewing automatically' : 'then it ends (it does not renew automatically)'}`,
    offerPaidBefore: 'The first purchase offer was used already: this payment bought coins at the regular rate.',
    order: 'Order',
    paid: 'Paid',
    failedSubject: 'Your Cliffhanger VIP renewal did not go through',
    failedBody: (title, price, graceUntil, lastTry) =>
      `We could not charge your card ${price} for ${title}. Your VIP continues until ${graceUntil} while we try again; if no payment passes by ${lastTry}, your subscription ends.`,
    updateCard: 'Update your card',
    reminderSubject: (date) => `Your Cliffhanger VIP renews on ${date}`,
    reminderBody: (title, price, date) => `${title} renews on ${date}: ${price} will be charged to your saved card. To stop it, cancel before then.`,
    manage: 'Manage your subscription',
    refundSubject: (title) => `Your Cliffhanger refund: ${title}`,
    refundBody: (title, price) => `We refunded ${price} for ${title}. It reaches your card within 5 to 10 business days.`,
  },
  es: {
    locale: 'es-ES',
    receiptSubject: (title) => `Tu recibo de Cliffhanger: ${title}`,
    receiptThanks: 'Gracias por tu compra en Cliffhanger.',
    coins: (coins, bonus) => `Monedas: ${coins}${bonus ? ` + ${bonus} monedas de regalo` : ''}`,
    vipUntil: (date, renews) => `VIP hasta: ${date}, ${renews ? 'después se renueva automáticamente' : 'después termina (no se renueva automáticamente)'}`,
    offerPaidBefore: 'La oferta de primera compra ya se usó: este pago compró monedas a la tarifa normal.',
    order: 'Pedido',
    paid: 'Pagado',
    failedSubject: 'No se pudo renovar tu VIP de Cliffhanger',
    failedBody: (title, price, graceUntil, lastTry) =>
      `No pudimos cobrar ${price} en tu tarjeta por ${title}. Tu VIP sigue hasta el ${graceUntil} mientras lo intentamos de nuevo; si ningún pago pasa antes del ${lastTry}, tu suscripción termina.`,
    updateCard: 'Actualiza tu tarjeta',
    reminderSubject: (date) => `Tu VIP de Cliffhanger se renueva el ${date}`,
    reminderBody: (title, price, date) => `${title} se renueva el ${date}: se cobrarán ${price} en tu tarjeta guardada. Para evitarlo, cancela antes.`,
    manage: 'Gestiona tu suscripción',
    refundSubject: (title) => `Tu reembolso de Cliffhanger: ${title}`,
    refundBody: (title, price) => `Te hemos reembolsado ${price} por ${title}. Llega a tu tarjeta en 5 a 10 días hábiles.`,
  },
  fy: {
    locale: 'fr-FR',
    receiptSubject: (title) => `Votre reçu Cliffhanger : ${title}`,
    receiptThanks: 'Merci pour votre achat sur Cliffhanger.',
    coins: (coins, bonus) => `Pièces : ${coins}${bonus ? ` + ${bonus} pièces bonus` : ''}`,
    vipUntil: (date, renews) => `VIP jusqu'au : ${date}, ${renews ? 'puis renouvelé automatiquement' : "puis il prend fin (il n'est pas renouvelé automatiquement)"}`,
    offerPaidBefore: "L'offre de premier achat a déjà été utilisée : ce paiement a acheté des pièces au tarif normal.",
    order: 'Commande',
    paid: 'Payé',
    failedSubject: "Le renouvellement de votre VIP Cliffhanger n'a pas abouti",
    failedBody: (title, price, graceUntil, lastTry) =>
      `Nous n'avons pas pu débiter ${price} sur votre carte pour ${title}. Votre VIP continue jusqu'au ${graceUntil} pendant que nous réessayons ; si aucun paiement ne passe d'ici le ${lastTry}, votre abonnement prend fin.`,
    updateCard: 'Mettez à jour votre carte',
    reminderSubject: (date) => `Votre VIP Cliffhanger sera renouvelé le ${date}`,
    reminderBody: (title, price, date) => `${title} sera renouvelé le ${date} : ${price} seront débités sur votre carte enregistrée. Pour l'arrêter, résiliez avant cette date.`,
    manage: 'Gérer votre abonnement',
    refundSubject: (title) => `Votre remboursement Cliffhanger : ${title}`,
    refundBody: (title, price) => `Nous vous avons remboursé ${price} pour ${title}. Le montant arrive sur votre carte sous 5 à 10 jours ouvrés.`,
  },
  dy: {
    locale: 'de-DE',
    receiptSubject: (title) => `Deine Cliffhanger-Quittung: ${title}`,
    receiptThanks: 'Danke für deinen Einkauf bei Cliffhanger.',
    coins: (coins, bonus) => `Münzen: ${coins}${bonus ? ` + ${bonus} Bonusmünzen` : ''}`,
    vipUntil: (date, renews) => `VIP bis: ${date}, ${renews ? 'danach automatische Verlängerung' : 'danach endet es (keine automatische Verlängerung)'}`,
    offerPaidBefore: 'Das Erstkaufangebot wurde bereits genutzt: Diese Zahlung hat Münzen zum regulären Preis gekauft.',
    order: 'Bestellung',
    paid: 'Bezahlt',
    failedSubject: 'Die Verlängerung deines Cliffhanger-VIP ist fehlgeschlagen',
    failedBody: (title, price, graceUntil, lastTry) =>
      `Wir konnten ${price} für ${title} nicht von deiner Karte abbuchen. Dein VIP läuft bis zum ${graceUntil} weiter, während wir es erneut versuchen; geht bis zum ${lastTry} keine Zahlung durch, endet dein Abo.`,
    updateCard: 'Karte aktualisieren',
    reminderSubject: (date) => `Dein Cliffhanger-VIP verlängert sich am ${date}`,
    reminderBody: (title, price, date) => `${title} verlängert sich am ${date}: ${price} werden von deiner gespeicherten Karte abgebucht. Kündige vorher, um das zu verhindern.`,
    manage: 'Abo verwalten',
    refundSubject: (title) => `Deine Cliffhanger-Erstattung: ${title}`,
    refundBody: (title, price) => `Wir haben dir ${price} für ${title} erstattet. Der Betrag erscheint in 5 bis 10 Werktagen auf deiner Karte.`,
  },
  pt: {
    locale: 'pt-BR',
    receiptSubject: (title) => `Seu recibo da Cliffhanger: ${title}`,
    receiptThanks: 'Obrigado pela sua compra na Cliffhanger.',
    coins: (coins, bonus) => `Moedas: ${coins}${bonus ? ` + ${bonus} moedas bônus` : ''}`,
    vipUntil: (date, renews) => `VIP até: ${date}, ${renews ? 'depois renova automaticamente' : 'depois termina (não renova automaticamente)'}`,
    offerPaidBefore: 'A oferta de primeira compra já foi usada: este pagamento comprou moedas pela tarifa normal.',
    order: 'Pedido',
    paid: 'Pago',
    failedSubject: 'A renovação do seu VIP da Cliffhanger não foi concluída',
    failedBody: (title, price, graceUntil, lastTry) =>
      `Não conseguimos cobrar ${price} no seu cartão por ${title}. Seu VIP continua até ${graceUntil} enquanto tentamos de novo; se nenhum pagamento passar até ${lastTry}, sua assinatura termina.`,
    updateCard: 'Atualize seu cartão',
    reminderSubject: (date) => `Seu VIP da Cliffhanger renova em ${date}`,
    reminderBody: (title, price, date) => `${title} renova em ${date}: ${price} serão cobrados no seu cartão salvo. Para evitar, cancele antes disso.`,
    manage: 'Gerencie sua assinatura',
    refundSubject: (title) => `Seu reembolso da Cliffhanger: ${title}`,
    refundBody: (title, price) => `Reembolsamos ${price} por ${title}. O valor chega ao seu cartão em 5 a 10 dias úteis.`,
  },
};

const byPrimaryTag: Record<string, MailLanguage> = { en: 'en', es: 'es', fr: 'fy', de: 'dy', pt: 'pt' };

/** The mail language of an Accept-Language header (the storefront sends the interface language chosen): its best-weighted known tag, else English. */
export function mailLanguageOf(acceptLanguage: string | undefined): MailLanguage {
  const tags = (acceptLanguage ?? '')
    .slice(0, 500)
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';');
      const quality = Number(params.find((param) => param.trim().startsWith('q='))?.trim().slice(2) ?? 1);
      return { primary: tag.trim().toLowerCase().split('-')[0] ?? '', quality: Number.isFinite(quality) ? quality : 0 };
    })
    .filter((entry) => entry.quality > 0 && byPrimaryTag[entry.primary])
    .sort((a, b) => b.quality - a.quality);
  return tags[0] ? byPrimaryTag[tags[0].primary]! : 'en';
}
