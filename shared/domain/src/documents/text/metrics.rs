//! The widths of the standard fonts' printable ASCII codes (32 to 126), from Adobe's metrics
//! files, for fonts a PDF names without `/Widths` (Ghostscript's `pdfwrite` writes Helvetica
//! so). Without them every code would measure half an em, and text placed after a string by
//! `TJ` offsets would drift from where the producer put it.

/// Helvetica (and Arial, which shares its metrics).
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556,
    556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667,
    611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667,
    667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500,
    222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];

const HELVETICA_BOLD: [u16; 95] = [
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556,
    556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, 975, 722, 722, 722, 722, 667,
    611, 778, 722, 278, 556, 722, 611, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667,
    667, 611, 333, 278, 333, 584, 556, 333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556,
    278, 889, 611, 611, 611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
];

const TIMES_BOLD: [u16; 95] = [
    250, 333, 555, 500, 500, 1000, 833, 278, 333, 333, 500, 570, 250, 333, 250, 278, 500, 500, 500,
    500, 500, 500, 500, 500, 500, 500, 333, 333, 570, 570, 570, 500, 930, 722, 667, 722, 722, 667,
    611, 778, 778, 389, 500, 778, 667, 944, 722, 778, 611, 778, 722, 556, 667, 722, 722, 1000, 722,
    722, 667, 333, 278, 333, 581, 500, 333, 500, 556, 444, 556, 444, 333, 500, 556, 278, 333, 556,
    278, 833, 556, 500, 556, 556, 444, 389, 333, 556, 500, 722, 500, 500, 444, 394, 220, 394, 520,
];

const TIMES_ROMAN: [u16; 95] = [
    250, 333, 408, 500, 500, 833, 778, 180, 333, 333, 500, 564, 250, 333, 250, 278, 500, 500, 500,
    500, 500, 500, 500, 500, 500, 500, 278, 278, 564, 564, 564, 444, 921, 722, 667, 667, 722, 611,
    556, 722, 722, 333, 389, 722, 611, 889, 722, 722, 556, 722, 667, 556, 611, 722, 722, 944, 722,
    722, 611, 333, 278, 333, 469, 500, 333, 444, 500, 444, 500, 444, 333, 500, 500, 278, 278, 500,
    278, 778, 500, 500, 500, 500, 333, 389, 278, 500, 500, 722, 500, 500, 444, 480, 200, 480, 541,
];

/// The first code the tables give a width to.
pub const FIRST_CODE: u32 = 32;

/// The widths (thousandths of an em) of codes 32 to 126 of a standard font by its base name;
/// None for a font that is not one of them (italics share their upright widths closely enough).
pub fn standard_widths(base_font: &str) -> Option<Vec<f32>> {
    let name = base_font.to_ascii_lowercase();
    let bold = name.contains("bold");
    let table: &[u16] = if name.contains("courier") {
        &[600; 95]
    } else if name.contains("helvetica") || name.contains("arial") {
        if bold { &HELVETICA_BOLD } else { &HELVETICA }
    } else if name.contains("times") {
        if bold { &TIMES_BOLD } else { &TIMES_ROMAN }
    } else {
        return None;
    };
    Some(table.iter().map(|w| f32::from(*w)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_fonts_measure_as_adobe_s_metrics_say() {
        let width = |font: &str, text: &str| -> f32 {
            let table = standard_widths(font).unwrap();
            text.bytes()
                .map(|b| table[(b as u32 - FIRST_CODE) as usize])
                .sum()
        };
        assert_eq!(width("Helvetica", "0123456789"), 5560.0);
        assert_eq!(width("Helvetica", "A"), 667.0);
        assert_eq!(width("Helvetica-Bold", "Wm"), 944.0 + 889.0);
        assert_eq!(width("Times-Bold", "$1,000.00"), 500.0 * 7.0 + 250.0 * 2.0);
        assert_eq!(width("ArialMT", "i"), 222.0);
        assert_eq!(width("Courier", "abc"), 1800.0);
        assert!(standard_widths("Garamond").is_none());
    }
}
