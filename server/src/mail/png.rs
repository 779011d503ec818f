//! A QR code as a PNG image, for e-mail (clients show inline images, not SVG): 8-bit greyscale,
//! a 4-module quiet zone, each module `SCALE` pixels square.

use std::io::Write;

/// Pixels per module.
const SCALE: usize = 6;
/// Light modules around the code (scanners need them).
const QUIET: usize = 4;

/// The QR code of `text` as PNG bytes.
pub fn qr_png(text: &str) -> Result<Vec<u8>, String> {
    let qr = qrcode::QrCode::new(text.as_bytes()).map_err(|e| e.to_string())?;
    let width = qr.width();
    let dark: Vec<bool> = qr
        .to_colors()
        .into_iter()
        .map(|c| c == qrcode::Color::Dark)
        .collect();
    let modules = width + 2 * QUIET;
    let side = modules * SCALE;
    // Each scanline: filter type 0 (none), then one byte per pixel.
    let mut pixels = Vec::with_capacity(side * (side + 1));
    for y in 0..side {
        pixels.push(0);
        let my = y / SCALE;
        for x in 0..side {
            let mx = x / SCALE;
            let inside =
                (QUIET..QUIET + width).contains(&mx) && (QUIET..QUIET + width).contains(&my);
            let on = inside && dark[(my - QUIET) * width + (mx - QUIET)];
            pixels.push(if on { 0 } else { 255 });
        }
    }
    let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    zlib.write_all(&pixels).map_err(|e| e.to_string())?;
    let data = zlib.finish().map_err(|e| e.to_string())?;

    let side = u32::try_from(side).map_err(|e| e.to_string())?;
    let mut header = Vec::with_capacity(13);
    header.extend_from_slice(&side.to_be_bytes());
    header.extend_from_slice(&side.to_be_bytes());
    // Bit depth 8, greyscale, deflate, standard filters, not interlaced.
    header.extend_from_slice(&[8, 0, 0, 0, 0]);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut png, b"IHDR", &header);
    chunk(&mut png, b"IDAT", &data);
    chunk(&mut png, b"IEND", &[]);
    Ok(png)
}

/// Appends a chunk: length, type, data, and the CRC-32 of type and data.
fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend_from_slice(&(data.len() as u32).to_be_bytes());
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    png.extend_from_slice(&crc.finalize().to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_image_is_a_png_of_whole_modules_with_a_quiet_zone() {
        let png = qr_png("SEATS2-t1-0123456789abcdef0123456789abcdef-00112233").unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        let side = u32::from_be_bytes(png[16..20].try_into().unwrap()) as usize;
        assert!(side.is_multiple_of(SCALE));
        let modules = side / SCALE - 2 * QUIET;
        // QR versions are 21, 25, 29, … modules wide.
        assert!(
            modules >= 21 && (modules - 21).is_multiple_of(4),
            "{modules}"
        );
        let crc = crc32fast::hash(&png[12..29]);
        assert_eq!(png[29..33], crc.to_be_bytes());
        assert_eq!(&png[png.len() - 8..png.len() - 4], b"IEND");
    }
}
