//! The tickets to print (80 mm receipt paper or A4).

use super::*;
use crate::pages::seat_map::plan::category_label;

/// The tickets as printed: one per seat, each with the booking's QR code.
#[component]
pub(super) fn PrintView(
    ticket: PrintedTicket,
    /// The sale's receipt, printed before the tickets (not for a reprint).
    #[prop(optional)]
    slip: Option<CounterSale>,
) -> impl IntoView {
    let lang = use_lang();
    let slip = slip.map(|sale| {
        let l = lang.get_untracked();
        let tender = match sale.tender {
            Tender::Cash => tr!(l, "kiosk.cash"),
            Tender::Card => tr!(l, "kiosk.card"),
            Tender::Comp => tr!(l, "kiosk.comp"),
        };
        view! {
            <article class="printed-ticket printed-receipt" data-test="printed-receipt">
                <p class="venue">{ticket.venue.clone()}</p>
                <h3>{tr!(l, "kiosk.receipt")}</h3>
                <p data-test="printed-receipt-meta">{crate::format::date_time(l, sale.sold_at)}<br />
                    {tr!(l, "kiosk.register")} " " {sale.register.clone()} " · " {sale.clerk.clone()}</p>
                <p>{crate::seating::reading_order(&sale.seats).join(", ")}</p>
                {sale.tickets.iter().any(|t| t.ticket_type.needs_proof()).then(|| view! {
                    <p data-test="receipt-types">{sale.tickets.iter().map(|t| format!("{} {} {}", t.seat, crate::i18n::translate(l, t.ticket_type.name_key(), &[]), price(l, t.price))).collect::<Vec<_>>().join(" · ")}</p>
                })}
                <p>{tr!(l, "kiosk.total")} " " <strong>{price(l, sale.amount)}</strong></p>
                <p>{tender}</p>
                {sale.tendered.map(|t| view! { <p>{tr!(l, "kiosk.cash_received")} " " {price(l, t)}</p> })}
                {sale.change.map(|c| view! { <p class="receipt-change">{tr!(l, "kiosk.change_due", amount = price(l, c))}</p> })}
                {sale.card_reference.clone().map(|r| view! { <p>{tr!(l, "kiosk.card_reference")} " " {r}</p> })}
                <p class="reference">{tr!(l, "kiosk.reference")} " " {sale.booking_id.reference()}</p>
            </article>
        }
    });
    let when = ticket.starts_at;
    let reference = ticket.booking_id.reference();
    let PrintedTicket {
        seats,
        reprint,
        venue,
        movie_title,
        hall_name,
        ..
    } = ticket;
    view! {
        <div class="print-area" data-test="print-view">
            {slip}
            {seats.into_iter().map(|seat| {
                let reference = reference.clone();
                let (row, number, price_of) = (seat.row.clone(), seat.number.clone(), seat.price);
                let (category_code, category) = (seat.category_code.clone(), seat.category.clone());
                let kind = seat.ticket_type;
                view! {
                    <article class="printed-ticket" data-test="printed-ticket">
                        {(reprint > 0).then(|| view! { <p class="reprint" data-test="reprint">{move || tr!(lang.get(), "kiosk.reprint_mark", n = reprint)}</p> })}
                        <p class="venue">{venue.clone()}</p>
                        <h3>{movie_title.clone()}</h3>
                        <p>{hall_name.clone()}</p>
                        <p>{move || showtime_when(lang.get(), when)}</p>
                        <p class="ticket-seat">{move || tr!(lang.get(), "kiosk.row_seat", row = row.clone(), number = number.clone())}</p>
                        <p>{move || category_label(lang.get(), &category_code, &category)} " · "
                            <span data-test="printed-type" data-type=kind.as_str()>{move || crate::i18n::translate(lang.get(), kind.name_key(), &[])}</span>
                            " · " {move || price(lang.get(), price_of)}</p>
                        {kind.needs_proof().then(|| view! { <p class="check-id">{move || tr!(lang.get(), "ticket_type.check_id")}</p> })}
                        // Each seat's own code: it admits this seat alone.
                        <div class="qr" inner_html=seat.qr_svg.clone()></div>
                        <p class="reference">{move || tr!(lang.get(), "kiosk.reference")} " " {reference.clone()}</p>
                        <p class="ticket-code" data-test="ticket-code">{seat.ticket_code.clone()}</p>
                    </article>
                }
            }).collect_view()}
        </div>
    }
}
