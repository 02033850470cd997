// The platform's policies as the service ships them, in both languages: what a new marketplace
// shows until its admin writes its own (/desk/policies). Written in the pages' small markup
// (src/web/policies/views.ts): blank lines between paragraphs, "## " a heading, "- " a list's item.
import type { Locale } from '../../contract/i18n.ts';
import type { PolicyKind } from '../../contract/policies.ts';

/** The service's own text of a policy, with the return window it enforces. */
export function defaultPolicy(kind: PolicyKind, locale: Locale, returnWindowDays: number): string {
  return (locale === 'fr-CA' ? FRENCH : ENGLISH)[kind](returnWindowDays);
}

const ENGLISH: Record<PolicyKind, (days: number) => string> = {
  terms:
    () => `These terms apply when you buy or sell on this marketplace. By paying for an order, you accept them.

## Who sells to you
Each product is sold by the shop named on its page. The shop is responsible for the product, its description, its shipping and its returns. The marketplace runs the website, takes the payment and passes it on to the shop.

## Prices and taxes
Prices are in Canadian dollars. The GST/HST and provincial sales taxes of the province the order ships to, and shipping, are added at checkout and shown before you pay. What you pay is what the checkout showed.

## Your order
An order is confirmed once it is paid. If a shop cannot fill it, the order is cancelled and refunded in full. You may cancel an order yourself until it ships, and you are refunded in full.

## Your account
Keep your password to yourself. You may see your orders, invoices, returns and the agents you allowed in your account, and remove an agent's access at any time.

## Contact
Questions about an order go to its shop first; if you cannot reach an answer, write to the marketplace.`,
  privacy: () => `We collect only what we need to sell to you and deliver your orders.

## What we keep
- Your name, email address and password (stored only as a one-way hash).
- The addresses you ship to, and your orders, invoices, returns and reviews.
- The language you chose for pages and emails.
- The agents (AI assistants) you allowed to shop for you, and what they may do.

We never see or store your card number: the payment provider handles it.

## Who sees it
The shop you buy from sees your name, shipping address and what you ordered, to send it. The payment provider sees what it needs to take the payment and refund it. We do not sell your information.

## How long
Orders and invoices are kept as long as Canadian tax law requires. You may ask us to close your account.

## Your rights
You may ask what we hold about you and have it corrected, as Canada's privacy law (PIPEDA) and Quebec's Law 25 provide.`,
  returns: (days) => `You may return what you bought within ${days} days after it was delivered.

## How to ask
Open the order in your account and ask for a return: the whole order, or some of its products, with the reason. One return at a time is open on an order.

## What happens next
The shop approves or refuses the return; a refusal always says why, and you are told by email. When it is approved, the refund goes back to the card you paid with: the products' price with their share of any discount and tax, and shipping too when the whole order comes back.

## Before it ships
An order that has not shipped yet is not returned: cancel it from your account instead, and you are refunded in full.`,
};

const FRENCH: Record<PolicyKind, (days: number) => string> = {
  terms:
    () => `Ces conditions s’appliquent lorsque vous achetez ou vendez sur ce marché en ligne. En payant une commande, vous les acceptez.

## Qui vous vend
Chaque produit est vendu par la boutique nommée sur sa page. La boutique répond du produit, de sa description, de son expédition et de ses retours. Le marché en ligne exploite le site, reçoit le paiement et le remet à la boutique.

## Prix et taxes
Les prix sont en dollars canadiens. La TPS/TVH et les taxes de vente de la province de livraison, ainsi que la livraison, s’ajoutent au moment de payer et sont affichées avant le paiement. Vous payez ce qui est affiché.

## Votre commande
Une commande est confirmée une fois payée. Si une boutique ne peut pas la remplir, la commande est annulée et remboursée en entier. Vous pouvez annuler une commande vous-même jusqu’à son expédition, et elle vous est remboursée en entier.

## Votre compte
Gardez votre mot de passe pour vous. Votre compte montre vos commandes, factures, retours et les agents que vous avez autorisés; vous pouvez retirer l’accès d’un agent en tout temps.

## Nous joindre
Pour une commande, écrivez d’abord à sa boutique; sans réponse, écrivez au marché en ligne.`,
  privacy: () => `Nous recueillons seulement ce qu’il faut pour vous vendre et livrer vos commandes.

## Ce que nous gardons
- Votre nom, votre adresse courriel et votre mot de passe (conservé seulement sous forme de hachage).
- Vos adresses de livraison, vos commandes, factures, retours et avis.
- La langue choisie pour les pages et les courriels.
- Les agents (assistants IA) que vous avez autorisés à magasiner pour vous, et ce qu’ils peuvent faire.

Nous ne voyons ni ne conservons jamais votre numéro de carte : le fournisseur de paiement s’en charge.

## Qui y a accès
La boutique où vous achetez voit votre nom, votre adresse de livraison et votre commande, pour l’expédier. Le fournisseur de paiement voit ce qu’il lui faut pour encaisser et rembourser. Nous ne vendons pas vos renseignements.

## Combien de temps
Les commandes et les factures sont conservées aussi longtemps que le droit fiscal canadien l’exige. Vous pouvez nous demander de fermer votre compte.

## Vos droits
Vous pouvez demander ce que nous détenons à votre sujet et le faire corriger, comme le prévoient la loi canadienne sur la protection des renseignements personnels (LPRPDE) et la Loi 25 du Québec.`,
  returns: (days) => `Vous pouvez retourner vos achats dans les ${days} jours suivant leur livraison.

## Comment demander
Ouvrez la commande dans votre compte et demandez un retour : toute la commande, ou certains de ses produits, avec la raison. Un seul retour à la fois peut être ouvert sur une commande.

## Et ensuite
La boutique accepte ou refuse le retour; un refus dit toujours pourquoi, et vous en êtes avisé par courriel. Une fois accepté, le remboursement retourne sur la carte utilisée : le prix des produits avec leur part du rabais et des taxes, et la livraison aussi quand toute la commande est retournée.

## Avant l’expédition
Une commande pas encore expédiée ne se retourne pas : annulez-la plutôt depuis votre compte, et elle vous est remboursée en entier.`,
};
