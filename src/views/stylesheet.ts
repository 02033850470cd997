// The one stylesheet of the pages and the MCP views, served as /assets/portage-<hash>.css (cached for a year: its
// name changes with it). The CSP allows styles from our origin only, so no page carries a style
// attribute or element; charts colour themselves with presentation attributes and classes.
import { createHash } from 'node:crypto';

export const STYLESHEET = `
:root { --ink: #1f2328; --muted: #5b6470; --line: #dcd9d0; --paper: #f6f4ef; --card: #fff; --brand: #1d3b2a; --brand-2: #2f5d43; --focus: #9cc3ad; --bad: #8c1d18; --bad-bg: #fdecea; --ok: #155e37; --ok-bg: #e5f4ea; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--paper); color: var(--ink); margin: 0; line-height: 1.45; }
a { color: var(--brand-2); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -9999px; top: 0; background: #fff; padding: 8px 12px; z-index: 10; }
.skip:focus { left: 8px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.top { background: var(--brand); color: #fff; padding: 10px 16px; display: flex; flex-wrap: wrap; align-items: center; gap: 10px 18px; }
.top a { color: #fff; }
.brand { font-weight: 700; font-size: 1.2rem; text-decoration: none; }
.top .search { display: flex; flex: 1 1 260px; max-width: 560px; gap: 6px; margin: 0; }
.top .search input { flex: 1; min-width: 0; padding: 8px 10px; border-radius: 8px; border: 0; font: inherit; }
.top .search button { margin: 0; width: auto; padding: 8px 14px; background: #fff; color: var(--brand); }
.top nav { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 14px; font-size: .92rem; }
.top nav form { margin: 0; }
.top .count { display: inline-block; min-width: 1.5em; padding: 0 .4em; border-radius: 1em; background: #fff; color: var(--brand); font-weight: 700; text-align: center; }
.top nav button { margin: 0; padding: 0; width: auto; background: none; color: #fff; text-decoration: underline; font-weight: 400; font-size: .92rem; }
main { max-width: 1120px; margin: 22px auto 40px; padding: 0 16px; overflow-wrap: anywhere; }
table { overflow-wrap: normal; }
main.narrow { max-width: 520px; }
footer { max-width: 1120px; margin: 0 auto 30px; padding: 0 16px; color: var(--muted); font-size: .85rem; }
h1 { font-size: 1.45rem; margin: 0 0 14px; }
h2 { font-size: 1.15rem; margin: 22px 0 10px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 18px 20px; margin-bottom: 16px; }
label { display: block; margin: 12px 0 4px; font-size: .92rem; font-weight: 500; }
input, select, textarea { width: 100%; padding: 9px 11px; font: inherit; border: 1px solid #b9bec6; border-radius: 8px; background: #fff; color: var(--ink); }
textarea { min-height: 90px; }
input[type=checkbox], input[type=radio] { width: auto; margin: 0 6px 0 0; }
.check { display: flex; align-items: center; font-weight: 400; margin: 6px 0; }
[aria-invalid=true] { border-color: var(--bad); }
button, .button { overflow-wrap: normal; display: inline-block; margin-top: 14px; padding: 10px 16px; font: inherit; font-weight: 600; background: var(--brand); color: #fff; border: 0; border-radius: 8px; cursor: pointer; text-decoration: none; }
button:hover, .button:hover { background: var(--brand-2); }
button.secondary, .button.secondary { background: #e8e6df; color: var(--ink); }
button.danger { background: var(--bad); }
button.small { margin: 0; padding: 6px 10px; font-size: .88rem; }
.row { display: flex; flex-wrap: wrap; gap: 10px; align-items: flex-end; }
.row > * { flex: 1 1 160px; }
.row > button, .row > .button { flex: 0 0 auto; }
.inline { display: inline; }
.hint, .muted { font-size: .86rem; color: var(--muted); }
.field-error { color: var(--bad); font-size: .86rem; margin: 4px 0 0; }
.alert { color: var(--bad); background: var(--bad-bg); border: 1px solid #f1b9b4; border-radius: 8px; padding: 10px 12px; font-weight: 600; }
.import-progress > p:not(:last-child) { display: none; }
.import-progress progress { vertical-align: middle; }
.notice { color: var(--ok); background: var(--ok-bg); border: 1px solid #b5dcc3; border-radius: 8px; padding: 10px 12px; }
.layout { display: grid; grid-template-columns: 240px 1fr; gap: 20px; align-items: start; }
.facets fieldset { border: 0; padding: 0; margin: 0 0 14px; }
.facets legend { font-weight: 700; margin-bottom: 4px; }
.facets .count { color: var(--muted); font-size: .85rem; white-space: nowrap; }
.facets > summary { font-weight: 700; font-size: 1.15rem; cursor: pointer; }
.facets > form > h2 { margin-top: 0; }
.chosen { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 10px; margin: 0 0 12px; }
.chosen p { margin: 0; }
.chosen ul { display: flex; flex-wrap: wrap; gap: 6px; list-style: none; padding: 0; margin: 0; }
.chosen a { display: inline-block; padding: 4px 10px; border-radius: 999px; background: #e8e6df; color: var(--ink); text-decoration: none; font-size: .88rem; }
.chosen a:hover { background: #dcd9d0; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 14px; list-style: none; padding: 0; margin: 0; }
.product { background: var(--card); border: 1px solid var(--line); border-radius: 12px; overflow: hidden; display: flex; flex-direction: column; }
.product img, .gallery img { width: 100%; max-width: 100%; height: auto; aspect-ratio: 4 / 3; object-fit: cover; background: #eceae4; display: block; }
.product .body { padding: 10px 12px 14px; }
.product h2 { font-size: 1rem; margin: 0 0 6px; }
.product h2 a { color: var(--ink); text-decoration: none; }
.price { font-weight: 700; font-size: 1.05rem; }
.stock-out { color: var(--bad); }
.picker fieldset { min-width: 0; margin: 0 0 10px; }
.picker legend { font-weight: 700; }
.stars { color: #8a5a00; }
.toolbar { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center; gap: 10px; margin-bottom: 12px; }
.toolbar form { display: flex; gap: 8px; align-items: center; }
.toolbar label { margin: 0; }
.toolbar select { width: auto; }
.pager { display: flex; gap: 14px; justify-content: center; margin: 18px 0; }
.sheet { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 24px; }
.gallery { display: grid; grid-template-columns: minmax(0, 1fr); gap: 10px; }
.image-list { list-style: none; padding: 0; display: grid; gap: 12px; }
.image-list img { max-width: 100%; height: auto; display: block; background: #eceae4; }
/* An image that fails keeps its 4:3 box (its alt text inside), so nothing around it moves. */
.product img, .gallery img { contain: size; overflow: hidden; color: var(--muted); font-size: .9rem; }
table { width: 100%; border-collapse: collapse; background: var(--card); }
th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .88rem; color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; white-space: nowrap; }
.order-number { white-space: nowrap; }
.table-wrap { position: relative; overflow-x: auto; border: 1px solid var(--line); border-radius: 12px; margin-bottom: 16px; }
.totals { max-width: 360px; margin-left: auto; }
.totals div { display: flex; justify-content: space-between; gap: 12px; padding: 3px 0; }
.totals div > span:last-child { white-space: nowrap; }
.totals .grand { font-weight: 700; border-top: 1px solid var(--line); margin-top: 4px; padding-top: 6px; }
.badge { display: inline-block; padding: 2px 8px; border-radius: 999px; background: #e8e6df; font-size: .82rem; }
.badge.paid, .badge.confirmed, .badge.delivered, .badge.approved, .badge.published, .badge.active { background: var(--ok-bg); color: var(--ok); }
.badge.cancelled, .badge.refunded, .badge.rejected { background: var(--bad-bg); color: var(--bad); }
.tabs { display: flex; flex-wrap: wrap; gap: 6px 16px; margin: 0 0 16px; padding: 0; list-style: none; }
.tabs a[aria-current=page] { font-weight: 700; color: var(--ink); text-decoration: none; }
.stats { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 12px; margin-bottom: 16px; }
.stat { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 12px 14px; }
.stat strong { display: block; font-size: 1.3rem; }
.chart { width: 100%; height: auto; display: block; }
.chart .axis text { font-size: 11px; fill: var(--muted); }
.chart .axis line, .chart .axis path { stroke: #b9bec6; }
.chart .line { fill: none; stroke: var(--brand-2); stroke-width: 2; }
.chart .area { fill: #cfe5d7; }
.chart .bar { fill: var(--brand-2); }
.chart .label { font-size: 11px; fill: var(--ink); }
dl.specs { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; }
dl.specs dt { color: var(--muted); }
dl.specs dd { margin: 0; }
.review { border-top: 1px solid var(--line); padding: 10px 0; }
footer .policies { display: flex; flex-wrap: wrap; gap: 4px 16px; margin-top: 6px; }
.policy { max-width: 760px; }
.policy h2 { margin-top: 18px; }
.policy-form textarea { min-height: 260px; }
address { font-style: normal; }
.card h2.first, .parcel h2 { margin-top: 0; }
.parcel-items { list-style: none; padding: 0; margin: 0 0 6px; }
.parcel-items li { display: flex; justify-content: space-between; gap: 12px; padding: 3px 0; }
.ship-options, .profile-form fieldset { border: 0; padding: 0; margin: 12px 0 0; min-width: 0; }
.ship-options legend, .profile-form legend { font-weight: 700; padding: 0; }
.profile-form .row { align-items: flex-start; }
.profile-form .box-row { align-items: flex-end; }
.profile-form .box-row > * { flex-basis: 120px; }
.profile-form input[type=number] { max-width: 12rem; }
.ship-option { display: flex; align-items: flex-start; gap: 4px; margin: 8px 0; padding: 10px 12px; border: 1px solid var(--line); border-radius: 10px; font-weight: 400; }
.ship-option:has(input:checked) { border-color: var(--brand-2); background: #f1f7f3; }
.ship-option input { margin-top: 4px; }
.ship-words { flex: 1; display: grid; grid-template-columns: 1fr auto; gap: 2px 12px; }
.ship-name, .ship-price { font-weight: 600; }
.ship-price { text-align: right; white-space: nowrap; }
.ship-date { grid-column: 1 / -1; color: var(--muted); font-size: .88rem; }
ul.addresses { list-style: none; padding: 0; margin: 0; }
.card ul.addresses > li + li { border-top: 1px solid var(--line); padding-top: 10px; margin-top: 10px; }
.shop-head { display: flex; gap: 16px; align-items: center; flex-wrap: wrap; }
.shop-logo { max-height: 96px; max-width: 40%; width: auto; }
.shop-products { margin-bottom: 16px; }
ul.messages { list-style: none; padding: 0; margin: 0 0 12px; }
ul.messages > li { border-left: 3px solid var(--line); padding: 2px 0 2px 12px; margin-bottom: 10px; overflow-wrap: anywhere; }
ul.messages > li.mine { border-left-color: var(--brand-2); }
ul.messages p { margin: 2px 0; }
ul.notices { list-style: none; padding: 0; margin: 0; }
ul.notices > li { overflow-wrap: anywhere; }
ul.notices > li + li { border-top: 1px solid var(--line); padding-top: 10px; margin-top: 10px; }
ul.notices > li.unread > a { font-weight: 600; }
@media (min-width: 761px) {
  @supports selector(::details-content) {
    .facets > summary { display: none; }
    .facets::details-content { content-visibility: visible; display: contents; }
  }
}
@media (max-width: 760px) {
  .layout, .sheet { grid-template-columns: minmax(0, 1fr); }
  .facets > form > h2 { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  table.stack, table.stack thead, table.stack tbody, table.stack tr, table.stack th, table.stack td { display: block; }
  table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.stack tr { border-bottom: 1px solid var(--line); padding: 6px 0; }
  table.stack td { border: 0; padding: 3px 12px; text-align: left; white-space: normal; overflow-wrap: anywhere; }
  table.stack td[data-label]::before { content: attr(data-label); display: block; font-size: .8rem; color: var(--muted); font-weight: 600; }
  .top nav { width: 100%; }
  main { margin-top: 14px; }
  th, td { padding: 6px 8px; }
}
`;

export const STYLESHEET_PATH = `/assets/portage-${createHash('sha256').update(STYLESHEET).digest('hex').slice(0, 12)}.css`;
