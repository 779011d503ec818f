//! The WebSocket framing the pages' sockets need (the waiting pages of `queue_pages`, the seat
//! map's viewers of `live_halls`): the server's text frame and close frame, and the frames a
//! browser sends, judged by their headers alone.

/// A server's text frame (unmasked, final) carrying `text`; empty for no text.
pub(super) fn text_frame(text: &str) -> Vec<u8> {
    if text.is_empty() {
        return Vec::new();
    }
    let len = text.len();
    let mut frame = Vec::with_capacity(len + 10);
    frame.push(0x81);
    if len < 126 {
        frame.push(len as u8);
    } else if let Ok(len) = u16::try_from(len) {
        frame.push(126);
        frame.extend_from_slice(&len.to_be_bytes());
    } else {
        frame.push(127);
        frame.extend_from_slice(&(len as u64).to_be_bytes());
    }
    frame.extend_from_slice(text.as_bytes());
    frame
}

pub(super) fn close_frame(code: u16) -> [u8; 4] {
    let [hi, lo] = code.to_be_bytes();
    [0x88, 0x02, hi, lo]
}

/// How a page's incoming bytes end it, if they do.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Nothing decided: read on.
    More,
    /// The connection ended (closed, reset).
    Gone,
    /// The browser sent nothing, not even a pong, for too long: closed (1001).
    Idle,
    /// The browser closed the socket: answered with a close.
    Closed,
    /// A text or binary message: a page has nothing to say (1008).
    Unexpected,
    /// A text or binary message over 125 bytes, refused on its header before any of it is
    /// read (1009).
    TooBig,
    /// Not WebSocket framing from a browser (unmasked, unknown opcode, reserved bits): 1002.
    Broken,
}

impl Verdict {
    pub(super) fn close_code(&self) -> Option<u16> {
        match self {
            Verdict::More | Verdict::Gone => None,
            Verdict::Closed => Some(1000),
            Verdict::Idle => Some(1001),
            Verdict::Unexpected => Some(1008),
            Verdict::TooBig => Some(1009),
            Verdict::Broken => Some(1002),
        }
    }
}

/// The frames a browser sends, read by their headers alone: their payloads (pongs) are skipped
/// as they arrive, so a page keeps no buffer of what it is sent.
#[derive(Default)]
pub(super) struct ClientFrames {
    /// The header read so far (2 bytes, up to 8 of extended length, 4 of mask).
    head: [u8; 14],
    have: u8,
    /// Payload bytes of the current frame still to skip.
    skip: u64,
}

impl ClientFrames {
    pub(super) fn feed(&mut self, mut bytes: &[u8]) -> Verdict {
        while !bytes.is_empty() {
            if self.skip > 0 {
                let n = (self.skip.min(bytes.len() as u64)) as usize;
                self.skip -= n as u64;
                bytes = &bytes[n..];
                continue;
            }
            self.head[self.have as usize] = bytes[0];
            self.have += 1;
            bytes = &bytes[1..];
            if let Some(verdict) = self.header() {
                return verdict;
            }
        }
        Verdict::More
    }

    /// Judges the header once it is whole (`None` while it is not, or when it was a frame to
    /// skip).
    fn header(&mut self) -> Option<Verdict> {
        let have = self.have as usize;
        if have < 2 {
            return None;
        }
        let (first, second) = (self.head[0], self.head[1]);
        let extended = match second & 0x7f {
            126 => 2,
            127 => 8,
            _ => 0,
        };
        if have < 2 + extended + 4 {
            return if second & 0x80 == 0 {
                Some(Verdict::Broken)
            } else {
                None
            };
        }
        let len = match extended {
            0 => u64::from(second & 0x7f),
            n => self.head[2..2 + n]
                .iter()
                .fold(0u64, |len, b| (len << 8) | u64::from(*b)),
        };
        self.have = 0;
        let opcode = first & 0x0f;
        let control = opcode & 0x8 != 0;
        // Reserved bits, a fragmented or long control frame, or a continuation of a message
        // that was never allowed to start.
        if first & 0x70 != 0 || (control && (first & 0x80 == 0 || len > 125)) || opcode == 0 {
            return Some(Verdict::Broken);
        }
        match opcode {
            0x8 => Some(Verdict::Closed),
            0x1 | 0x2 if len > 125 => Some(Verdict::TooBig),
            0x1 | 0x2 => Some(Verdict::Unexpected),
            // Pongs, and pings (browsers send none; they go unanswered): skipped.
            0x9 | 0xa => {
                self.skip = len;
                None
            }
            _ => Some(Verdict::Broken),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A browser's frame: masked, with the mask applied.
    fn client_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
        let mask = [1u8, 2, 3, 4];
        let mut frame = vec![0x80 | opcode];
        match payload.len() {
            n if n < 126 => frame.push(0x80 | n as u8),
            n => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
        }
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        frame
    }

    #[test]
    fn pongs_are_skipped_even_when_they_arrive_a_byte_at_a_time() {
        let mut frames = ClientFrames::default();
        let mut bytes = client_frame(0xa, b"a pong's data");
        bytes.extend(client_frame(0xa, b""));
        for b in &bytes {
            assert_eq!(frames.feed(std::slice::from_ref(b)), Verdict::More);
        }
        assert_eq!(
            frames.feed(&client_frame(0x8, &[0x03, 0xe8])),
            Verdict::Closed
        );
    }

    #[test]
    fn a_close_after_a_pong_in_one_read_closes() {
        let mut bytes = client_frame(0xa, b"x");
        bytes.extend(client_frame(0x8, &[]));
        assert_eq!(ClientFrames::default().feed(&bytes), Verdict::Closed);
    }

    #[test]
    fn a_message_from_a_waiting_page_is_refused() {
        let text = client_frame(0x1, b"hello");
        assert_eq!(ClientFrames::default().feed(&text), Verdict::Unexpected);
        let binary = client_frame(0x2, b"hello");
        assert_eq!(
            ClientFrames::default().feed(&binary[..6]),
            Verdict::Unexpected
        );
        // A long one is refused on its header, before its payload.
        let long = client_frame(0x2, &[0u8; 300]);
        assert_eq!(ClientFrames::default().feed(&long[..8]), Verdict::TooBig);
    }

    #[test]
    fn a_control_frame_longer_than_125_bytes_or_fragmented_is_broken_framing() {
        let long = client_frame(0xa, &[0u8; 126]);
        assert_eq!(ClientFrames::default().feed(&long[..8]), Verdict::Broken);
        let fits = client_frame(0xa, &[0u8; 125]);
        assert_eq!(ClientFrames::default().feed(&fits), Verdict::More);
        let mut fragment = client_frame(0xa, b"x");
        fragment[0] &= 0x7f;
        assert_eq!(ClientFrames::default().feed(&fragment), Verdict::Broken);
        assert_eq!(
            ClientFrames::default().feed(&client_frame(0x0, b"x")),
            Verdict::Broken
        );
    }

    #[test]
    fn unmasked_frames_and_reserved_bits_are_broken_framing() {
        assert_eq!(ClientFrames::default().feed(&[0x8a, 0x00]), Verdict::Broken);
        let mut reserved = client_frame(0xa, b"");
        reserved[0] |= 0x40;
        assert_eq!(ClientFrames::default().feed(&reserved), Verdict::Broken);
        assert_eq!(
            ClientFrames::default().feed(&client_frame(0x3, b"")),
            Verdict::Broken
        );
    }

    #[test]
    fn text_frames_carry_their_length_in_the_smallest_form() {
        assert_eq!(text_frame(""), Vec::<u8>::new());
        assert_eq!(text_frame("hi"), vec![0x81, 2, b'h', b'i']);
        let long = "x".repeat(300);
        let frame = text_frame(&long);
        assert_eq!(&frame[..4], &[0x81, 126, 0x01, 0x2c]);
        assert_eq!(frame.len(), 304);
    }
}
