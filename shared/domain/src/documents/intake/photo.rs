//! A photo is decoded before it is taken: a JPEG or PNG that doesn't decode is refused with the
//! decoder's reason, and the pixel count its header declares is bounded before any pixel is
//! decoded (a small file can declare a huge image).

use super::{Limits, Refusal};

/// The image formats taken as photos.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Jpeg,
    Png,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Jpeg => "JPEG",
            Format::Png => "PNG",
        }
    }
}

/// Decodes the whole image within the pixel limit; the pixels are dropped (nothing reads them).
pub fn check(bytes: &[u8], format: Format, limits: &Limits) -> Result<(), Refusal> {
    let unreadable = |why: String| Refusal::ImageUnreadable {
        format: format.name().to_string(),
        why,
    };
    let bounded = |width: u64, height: u64| {
        let pixels = width.saturating_mul(height);
        if pixels > limits.max_pixels {
            return Err(Refusal::TooManyPixels {
                pixels,
                limit: limits.max_pixels,
            });
        }
        Ok(())
    };
    match format {
        Format::Png => {
            // The decoder's own byte limit is lifted: the pixel count is bounded below.
            let no_limit = png::Limits { bytes: usize::MAX };
            let decoder = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), no_limit);
            let mut reader = decoder.read_info().map_err(|e| unreadable(e.to_string()))?;
            let info = reader.info();
            bounded(u64::from(info.width), u64::from(info.height))?;
            let size = reader
                .output_buffer_size()
                .ok_or_else(|| unreadable("its size overflows".into()))?;
            let mut pixels = vec![0; size];
            reader
                .next_frame(&mut pixels)
                .map_err(|e| unreadable(e.to_string()))?;
        }
        Format::Jpeg => {
            use zune_jpeg::zune_core::bytestream::ZCursor;
            use zune_jpeg::zune_core::options::DecoderOptions;
            // The decoder's own side limit is past the pixel limit's square root; the product
            // is what is bounded here.
            let options = DecoderOptions::default()
                .set_max_width(usize::from(u16::MAX))
                .set_max_height(usize::from(u16::MAX));
            let mut decoder =
                zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), options);
            decoder
                .decode_headers()
                .map_err(|e| unreadable(e.to_string()))?;
            let info = decoder
                .info()
                .ok_or_else(|| unreadable("it has no frame header".into()))?;
            bounded(u64::from(info.width), u64::from(info.height))?;
            decoder.decode().map_err(|e| unreadable(e.to_string()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1 x 1 grey PNG (67 bytes).
    const TINY_PNG: [u8; 67] = [
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x3a,
        0x7e, 0x9b, 0x55, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60,
        0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0x48, 0xaf, 0xa4, 0x71, 0x00, 0x00, 0x00, 0x00, 0x49,
        0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ];

    #[test]
    fn a_png_that_decodes_is_taken() {
        assert_eq!(check(&TINY_PNG, Format::Png, &Limits::default()), Ok(()));
    }

    #[test]
    fn a_signature_and_random_bytes_are_refused_with_the_reason() {
        let mut bytes = TINY_PNG[..8].to_vec();
        bytes.extend((0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
        let refused = check(&bytes, Format::Png, &Limits::default()).unwrap_err();
        assert!(
            matches!(&refused, Refusal::ImageUnreadable { format, .. } if format == "PNG"),
            "{refused}"
        );
        let jpeg = [&[0xFF, 0xD8, 0xFF, 0xE0][..], &bytes[8..]].concat();
        let refused = check(&jpeg, Format::Jpeg, &Limits::default()).unwrap_err();
        assert!(
            matches!(&refused, Refusal::ImageUnreadable { format, .. } if format == "JPEG"),
            "{refused}"
        );
    }

    /// The header's size is refused before a pixel is decoded: 60,000 x 60,000 declared in
    /// 67 bytes (the CRC is the decoder's to check, and a wrong one is refused as unreadable).
    #[test]
    fn a_huge_declared_size_is_refused_before_decoding() {
        let mut huge = TINY_PNG;
        huge[16..20].copy_from_slice(&60_000u32.to_be_bytes());
        huge[20..24].copy_from_slice(&60_000u32.to_be_bytes());
        let crc = crc32(&huge[12..29]);
        huge[29..33].copy_from_slice(&crc.to_be_bytes());
        let refused = check(&huge, Format::Png, &Limits::default()).unwrap_err();
        assert_eq!(
            refused,
            Refusal::TooManyPixels {
                pixels: 3_600_000_000,
                limit: Limits::default().max_pixels
            }
        );
    }

    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for b in bytes {
            crc ^= u32::from(*b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
}
