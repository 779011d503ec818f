//! The customer's messages, in their language (Korean or English): the ticket (text and HTML,
//! the QR code as an inline image, the reference, the seats, a signed link to the booking) and
//! the refund notice (saying so when the showtime was cancelled).

use crate::store::MailKind;
use app::domain::Won;
use app::i18n::Lang;
use chrono::{DateTime, Utc};
use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::Message;

/// Everything a message says, read from the booking when it is sent.
#[derive(Debug, Clone)]
pub struct Letter {
    pub kind: MailKind,
    pub lang: Lang,
    pub reference: String,
    pub movie_title: String,
    pub hall_name: String,
    pub starts_at: DateTime<Utc>,
    pub seats: Vec<String>,
    pub amount: Won,
    /// The booking's ticket code (its QR code admits every seat).
    pub ticket_code: String,
    /// Opens the booking on any device.
    pub link: String,
    pub showtime_cancelled: bool,
}

/// The Content-ID of the QR image the HTML part shows.
const QR_CID: &str = "ticket-qr";

impl Letter {
    fn when(&self) -> String {
        app::format::showtime_when(self.lang, self.starts_at)
    }

    fn price(&self) -> String {
        app::format::price(self.lang, self.amount)
    }

    pub fn subject(&self) -> String {
        let (title, when) = (&self.movie_title, self.when());
        match (self.kind, self.lang, self.showtime_cancelled) {
            (MailKind::Ticket, Lang::En, _) => format!("Your tickets: {title}, {when}"),
            (MailKind::Ticket, Lang::Ko, _) => format!("[예매 완료] {title} {when}"),
            (MailKind::Refund, Lang::En, true) => {
                format!("Cancelled and refunded: {title}, {when}")
            }
            (MailKind::Refund, Lang::Ko, true) => format!("[상영 취소·환불] {title} {when}"),
            (MailKind::Refund, Lang::En, false) => format!("Refunded: {title}, {when}"),
            (MailKind::Refund, Lang::Ko, false) => format!("[환불 완료] {title} {when}"),
        }
    }

    /// The opening sentence.
    fn lead(&self) -> String {
        let (title, when, price) = (&self.movie_title, self.when(), self.price());
        match (self.kind, self.lang, self.showtime_cancelled) {
            (MailKind::Ticket, Lang::En, _) => "Your booking is confirmed.".into(),
            (MailKind::Ticket, Lang::Ko, _) => "예매가 완료되었습니다.".into(),
            (MailKind::Refund, Lang::En, true) => format!(
                "We are sorry: the showing of {title} on {when} is cancelled. Your payment of {price} has been refunded."
            ),
            (MailKind::Refund, Lang::Ko, true) => format!(
                "죄송합니다. {when} {title} 상영이 취소되었습니다. 결제하신 {price}은 환불되었습니다."
            ),
            (MailKind::Refund, Lang::En, false) => {
                format!("Your booking has been refunded: {price}.")
            }
            (MailKind::Refund, Lang::Ko, false) => format!("예매가 환불되었습니다: {price}."),
        }
    }

    /// `(label, value)` lines of the booking.
    fn facts(&self) -> Vec<(&'static str, String)> {
        let ko = self.lang == Lang::Ko;
        let pick = |en: &'static str, k: &'static str| if ko { k } else { en };
        vec![
            (pick("Film", "영화"), self.movie_title.clone()),
            (pick("When", "일시"), self.when()),
            (pick("Hall", "상영관"), self.hall_name.clone()),
            (pick("Seats", "좌석"), self.seats.join(", ")),
            (
                pick(
                    if self.kind == MailKind::Ticket {
                        "Paid"
                    } else {
                        "Refunded"
                    },
                    if self.kind == MailKind::Ticket {
                        "결제 금액"
                    } else {
                        "환불 금액"
                    },
                ),
                self.price(),
            ),
            (
                pick("Booking reference", "예매 번호"),
                self.reference.clone(),
            ),
        ]
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
            lang,
            reference: "21D6B008".into(),
            movie_title: "<b>Parasite</b> & co".into(),
            hall_name: "Hall 1".into(),
            starts_at: "2026-12-05T10:30:00Z".parse().unwrap(),
            seats: vec!["F5".into(), "F6".into()],
            amount: Won::new(24_000),
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
}
