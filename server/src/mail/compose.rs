//! The customer's messages, in their language (Korean or English): the ticket (text and HTML,
//! the QR code as an inline image, the reference, the seats, a signed link to the booking), the
//! new ticket after an exchange at the counter, and the refund notice (a whole or partial refund,
//! a cancelled showtime's refund, or a cancelled showtime's counter sale to be given back at the
//! box office). A refund says the amount it moved and the seats it concerns.

use crate::store::{About, MailKind};
use app::domain::Won;
use app::i18n::Lang;
use chrono::{DateTime, Utc};
use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::Message;

/// Everything a message says: the change it announces as its event said it, the rest read from
/// the booking when it is sent.
#[derive(Debug, Clone)]
pub struct Letter {
    pub kind: MailKind,
    pub about: About,
    pub lang: Lang,
    pub reference: String,
    pub movie_title: String,
    pub hall_name: String,
    pub starts_at: DateTime<Utc>,
    /// A ticket's seats; a refund's seats given back.
    pub seats: Vec<String>,
    /// An exchange's seats given back.
    pub given_back: Vec<String>,
    /// Paid (a ticket), or given back (a refund).
    pub amount: Won,
    /// A refund of some of the booking's seats: it keeps the others.
    pub partial: bool,
    /// The booking's ticket code (its QR code admits every seat).
    pub ticket_code: String,
    /// Opens the booking on any device.
    pub link: String,
    pub showtime_cancelled: bool,
}

/// The Content-ID of the QR image the HTML part shows.
const QR_CID: &str = "ticket-qr";

/// Which message it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    Ticket,
    /// The new ticket after an exchange.
    Exchange,
    Refund,
    /// Some seats refunded, the others kept.
    PartRefund,
    /// The showtime cancelled and the payment refunded.
    CancelledRefunded,
    /// The showtime cancelled; a counter sale's money given back at the box office.
    CancelledOwed,
}

impl Letter {
    fn case(&self) -> Case {
        match (self.kind, self.about) {
            (MailKind::Ticket, About::Exchange) => Case::Exchange,
            (MailKind::Ticket, _) => Case::Ticket,
            (MailKind::Refund, About::OwedAtCounter) => Case::CancelledOwed,
            (MailKind::Refund, _) if self.showtime_cancelled => Case::CancelledRefunded,
            (MailKind::Refund, _) if self.partial => Case::PartRefund,
            (MailKind::Refund, _) => Case::Refund,
        }
    }

    fn when(&self) -> String {
        app::format::showtime_when(self.lang, self.starts_at)
    }

    fn price(&self) -> String {
        app::format::price(self.lang, self.amount)
    }

    pub fn subject(&self) -> String {
        let (title, when) = (&self.movie_title, self.when());
        let en = self.lang == Lang::En;
        let (en_head, ko_head) = match self.case() {
            Case::Ticket => ("Your tickets", "예매 완료"),
            Case::Exchange => ("Seats changed", "좌석 변경"),
            Case::Refund | Case::PartRefund => ("Refunded", "환불 완료"),
            Case::CancelledRefunded => ("Cancelled and refunded", "상영 취소·환불"),
            Case::CancelledOwed => ("Cancelled", "상영 취소"),
        };
        match en {
            true => format!("{en_head}: {title}, {when}"),
            false => format!("[{ko_head}] {title} {when}"),
        }
    }

    /// The opening sentence.
    fn lead(&self) -> String {
        let (title, when, price) = (&self.movie_title, self.when(), self.price());
        let (seats, old) = (self.seats.join(", "), self.given_back.join(", "));
        match (self.case(), self.lang) {
            (Case::Ticket, Lang::En) => "Your booking is confirmed.".into(),
            (Case::Ticket, Lang::Ko) => "예매가 완료되었습니다.".into(),
            (Case::Exchange, Lang::En) => format!(
                "Your seats were changed at the box office: {old} given back, their tickets no longer admit. Your new ticket is below."
            ),
            (Case::Exchange, Lang::Ko) => format!(
                "매표소에서 좌석이 변경되었습니다. 반환된 좌석 {old}의 티켓으로는 입장할 수 없습니다. 새 티켓은 아래와 같습니다."
            ),
            (Case::CancelledRefunded, Lang::En) => format!(
                "We are sorry: the showing of {title} on {when} is cancelled. Your payment of {price} has been refunded."
            ),
            (Case::CancelledRefunded, Lang::Ko) => format!(
                "죄송합니다. {when} {title} 상영이 취소되었습니다. 결제하신 {price}은 환불되었습니다."
            ),
            (Case::CancelledOwed, Lang::En) => format!(
                "We are sorry: the showing of {title} on {when} is cancelled. Your payment of {price} is given back at the box office: show this message or tell them your booking reference."
            ),
            (Case::CancelledOwed, Lang::Ko) => format!(
                "죄송합니다. {when} {title} 상영이 취소되었습니다. 결제하신 {price}은 매표소에서 돌려드립니다. 이 메일을 보여 주시거나 예매 번호를 알려 주세요."
            ),
            (Case::PartRefund, Lang::En) => {
                format!("Seats {seats} of your booking have been refunded: {price}. Your other seats stand.")
            }
            (Case::PartRefund, Lang::Ko) => format!(
                "예매하신 좌석 중 {seats} 좌석이 환불되었습니다: {price}. 나머지 좌석은 그대로 유효합니다."
            ),
            (Case::Refund, Lang::En) => format!("Your booking has been refunded: {price}."),
            (Case::Refund, Lang::Ko) => format!("예매가 환불되었습니다: {price}."),
        }
    }

    /// `(label, value)` lines of the booking.
    fn facts(&self) -> Vec<(&'static str, String)> {
        let ko = self.lang == Lang::Ko;
        let pick = |en: &'static str, k: &'static str| if ko { k } else { en };
        let (seats, amount) = match self.case() {
            Case::Ticket | Case::Exchange => (pick("Seats", "좌석"), pick("Paid", "결제 금액")),
            Case::CancelledOwed => (pick("Seats", "좌석"), pick("To be refunded", "환불할 금액")),
            _ => (
                pick("Seats refunded", "환불 좌석"),
                pick("Refunded", "환불 금액"),
            ),
        };
        let mut facts = vec![
            (pick("Film", "영화"), self.movie_title.clone()),
            (pick("When", "일시"), self.when()),
            (pick("Hall", "상영관"), self.hall_name.clone()),
        ];
        if !self.seats.is_empty() {
            facts.push((seats, self.seats.join(", ")));
        }
        if self.case() == Case::Exchange {
            facts.push((
                pick("Seats given back", "반환 좌석"),
                self.given_back.join(", "),
            ));
        }
        facts.extend([
            (amount, self.price()),
            (
                pick("Booking reference", "예매 번호"),
                self.reference.clone(),
            ),
        ]);
        facts
    }

    fn closing(&self) -> &'static str {
        match (self.kind, self.lang) {
            (MailKind::Ticket, Lang::En) => {
                "Show the QR code in this message at the door, or open your booking:"
            }
            (MailKind::Ticket, Lang::Ko) => {
                "입장할 때 이 메일의 QR 코드를 보여 주시거나 예매 내역을 여세요:"
            }
            (MailKind::Refund, Lang::En) => "Your booking:",
            (MailKind::Refund, Lang::Ko) => "예매 내역:",
        }
    }

    pub fn text(&self) -> String {
        let mut out = format!("{}\n\n", self.lead());
        for (label, value) in self.facts() {
            out.push_str(&format!("{label}: {value}\n"));
        }
        if self.kind == MailKind::Ticket {
            let code = if self.lang == Lang::Ko {
                "티켓 코드"
            } else {
                "Ticket code"
            };
            out.push_str(&format!("{code}: {}\n", self.ticket_code));
        }
        out.push_str(&format!("\n{}\n{}\n", self.closing(), self.link));
        out
    }

    pub fn html(&self) -> String {
        let lang = if self.lang == Lang::Ko { "ko" } else { "en" };
        let mut rows = String::new();
        for (label, value) in self.facts() {
            rows.push_str(&format!(
                "<tr><th align=\"left\" style=\"padding:2px 12px 2px 0\">{}</th><td>{}</td></tr>",
                escape(label),
                escape(&value)
            ));
        }
        let qr = if self.kind == MailKind::Ticket {
            format!(
                "<p><img src=\"cid:{QR_CID}\" width=\"240\" height=\"240\" alt=\"{}\"></p>",
                escape(&self.ticket_code)
            )
        } else {
            String::new()
        };
        format!(
            "<!doctype html><html lang=\"{lang}\"><head><meta charset=\"utf-8\"><title>{}</title></head>\
             <body style=\"font-family:sans-serif\"><p>{}</p><table>{rows}</table>{qr}\
             <p>{}<br><a href=\"{}\">{}</a></p></body></html>",
            escape(&self.subject()),
            escape(&self.lead()),
            escape(self.closing()),
            escape(&self.link),
            escape(&self.link),
        )
    }

    /// The whole message to `to`.
    pub fn message(&self, from: &Mailbox, to: Mailbox) -> Result<Message, String> {
        let html = SinglePart::html(self.html());
        let body = if self.kind == MailKind::Ticket {
            let png = super::png::qr_png(&self.ticket_code)?;
            let image = Attachment::new_inline(QR_CID.to_string()).body(
                png,
                ContentType::parse("image/png").map_err(|e| e.to_string())?,
            );
            MultiPart::related().singlepart(html).singlepart(image)
        } else {
            MultiPart::related().singlepart(html)
        };
        Message::builder()
            .from(from.clone())
            .to(to)
            .subject(self.subject())
            .multipart(
                MultiPart::alternative()
                    .singlepart(SinglePart::plain(self.text()))
                    .multipart(body),
            )
            .map_err(|e| e.to_string())
    }
}

/// Text as HTML shows it literally (titles and names come from the operator).
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn letter(kind: MailKind, lang: Lang) -> Letter {
        Letter {
            kind,
            about: About::Booking,
            lang,
            reference: "21D6B008".into(),
            movie_title: "<b>Parasite</b> & co".into(),
            hall_name: "Hall 1".into(),
            starts_at: "2026-12-05T10:30:00Z".parse().unwrap(),
            seats: vec!["F5".into(), "F6".into()],
            given_back: vec![],
            amount: Won::new(24_000),
            partial: false,
            ticket_code: "SEATS2-t1-abc-def".into(),
            link: "https://cinema.example/bookings/x/open?key=t1.ab".into(),
            showtime_cancelled: false,
        }
    }

    #[test]
    fn the_operator_s_text_is_shown_not_run_in_the_html_part() {
        let html = letter(MailKind::Ticket, Lang::En).html();
        assert!(
            html.contains("&lt;b&gt;Parasite&lt;/b&gt; &amp; co"),
            "{html}"
        );
        assert!(!html.contains("<b>Parasite"));
    }

    #[test]
    fn each_language_has_its_own_words_and_the_ticket_its_code() {
        let en = letter(MailKind::Ticket, Lang::En);
        let ko = letter(MailKind::Ticket, Lang::Ko);
        assert!(en.text().contains("Seats: F5, F6"), "{}", en.text());
        assert!(en.text().contains("Ticket code: SEATS2-t1-abc-def"));
        assert!(ko.text().contains("좌석: F5, F6"), "{}", ko.text());
        assert!(ko.subject().starts_with("[예매 완료]"));
        let mut cancelled = letter(MailKind::Refund, Lang::Ko);
        cancelled.showtime_cancelled = true;
        assert!(cancelled.text().contains("상영이 취소되었습니다"));
        assert!(
            !cancelled.text().contains("SEATS2"),
            "a refund has no ticket"
        );
    }

    #[test]
    fn a_refund_says_what_it_moved_and_where_the_money_is() {
        let mut part = letter(MailKind::Refund, Lang::En);
        (part.seats, part.amount, part.partial) = (vec!["F5".into()], Won::new(9_000), true);
        assert!(
            part.text()
                .starts_with("Seats F5 of your booking have been refunded: ₩9,000."),
            "{}",
            part.text()
        );
        assert!(
            part.text().contains("Seats refunded: F5\n"),
            "{}",
            part.text()
        );
        let mut owed = letter(MailKind::Refund, Lang::Ko);
        (owed.about, owed.showtime_cancelled) = (About::OwedAtCounter, true);
        assert!(
            owed.subject().starts_with("[상영 취소]"),
            "{}",
            owed.subject()
        );
        assert!(
            owed.text().contains("매표소에서 돌려드립니다"),
            "{}",
            owed.text()
        );
        assert!(
            owed.text().contains("환불할 금액: 24,000원"),
            "{}",
            owed.text()
        );
    }

    #[test]
    fn an_exchange_sends_the_new_ticket_and_names_the_seats_given_back() {
        let mut exchange = letter(MailKind::Ticket, Lang::En);
        (exchange.about, exchange.given_back) = (About::Exchange, vec!["A1".into()]);
        let text = exchange.text();
        assert!(exchange.subject().starts_with("Seats changed:"));
        assert!(text.contains("Seats: F5, F6\n"), "{text}");
        assert!(text.contains("Seats given back: A1\n"), "{text}");
        assert!(text.contains("Ticket code: SEATS2-t1-abc-def"), "{text}");
    }
}
