//! The tools known for editing PDFs, matched in a file's `/Producer` and `/Creator`. Kept in
//! this one place; `docs/documents.md` lists the same. Each entry names the tool and the text
//! that identifies it (compared case-insensitively), and the text that, when present too, marks
//! the same vendor's creation tools instead (Acrobat Distiller and Adobe PDF Library make PDFs
//! from other files; they do not edit them).

/// When a tool counts as an editing tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Whenever it names the producer or the creator.
    Always,
    /// Only when the file was modified after it was created (macOS Preview writes
    /// "Quartz PDFContext" for every PDF it prints as well as those it edits).
    ModifiedLater,
    /// Only when the creator is LibreOffice Draw (a PDF imported into Draw and exported again).
    DrawImport,
}

/// One editing tool.
pub struct EditingTool {
    pub name: &'static str,
    pub matches: &'static str,
    pub unless: &'static [&'static str],
    pub when: When,
}

/// The documented list.
pub const EDITING_TOOLS: &[EditingTool] = &[
    EditingTool {
        name: "Adobe Acrobat",
        matches: "acrobat",
        unless: &["distiller", "pdf library", "pdfmaker", "paper capture"],
        when: When::Always,
    },
    EditingTool {
        name: "iLovePDF",
        matches: "ilovepdf",
        unless: &[],
        when: When::Always,
    },
    EditingTool {
        name: "Smallpdf",
        matches: "smallpdf",
        unless: &[],
        when: When::Always,
    },
    EditingTool {
        name: "Sejda",
        matches: "sejda",
        unless: &[],
        when: When::Always,
    },
    EditingTool {
        name: "PDFescape",
        matches: "pdfescape",
        unless: &[],
        when: When::Always,
    },
    EditingTool {
        name: "PDF-XChange Editor",
        matches: "pdf-xchange",
        unless: &[],
        when: When::Always,
    },
    EditingTool {
        name: "Foxit PhantomPDF",
        matches: "phantompdf",
        unless: &[],
        when: When::Always,
    },
    EditingTool {
        name: "Foxit PDF Editor",
        matches: "foxit pdf editor",
        unless: &[],
        when: When::Always,
    },
    EditingTool {
        name: "Nitro PDF",
        matches: "nitro",
        unless: &[],
        when: When::Always,
    },
    EditingTool {
        name: "PDFfiller",
        matches: "pdffiller",
        unless: &[],
        when: When::Always,
    },
    EditingTool {
        name: "PDF Candy",
        matches: "pdf candy",
        unless: &[],
        when: When::Always,
    },
    EditingTool {
        name: "Soda PDF",
        matches: "soda pdf",
        unless: &[],
        when: When::Always,
    },
    EditingTool {
        name: "Wondershare PDFelement",
        matches: "pdfelement",
        unless: &[],
        when: When::Always,
    },
    EditingTool {
        name: "DocFly",
        matches: "docfly",
        unless: &[],
        when: When::Always,
    },
    EditingTool {
        name: "macOS Preview",
        matches: "quartz pdfcontext",
        unless: &[],
        when: When::ModifiedLater,
    },
    EditingTool {
        name: "LibreOffice Draw",
        matches: "libreoffice",
        unless: &[],
        when: When::DrawImport,
    },
];

/// The editing tool that `producer` or `creator` names, if any.
pub fn editing_tool(
    producer: &str,
    creator: &str,
    modified_later: bool,
) -> Option<&'static EditingTool> {
    let (p, c) = (producer.to_lowercase(), creator.to_lowercase());
    EDITING_TOOLS.iter().find(|tool| {
        let names =
            |s: &str| s.contains(tool.matches) && !tool.unless.iter().any(|u| s.contains(u));
        match tool.when {
            When::Always => names(&p) || names(&c),
            When::ModifiedLater => modified_later && (names(&p) || names(&c)),
            When::DrawImport => names(&p) && c.contains("draw"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creation_tools_of_an_editing_vendor_are_not_editing_tools() {
        assert!(editing_tool("Acrobat Distiller 23.0", "Word", false).is_none());
        assert!(editing_tool("Adobe PDF Library 17.11", "Adobe InDesign", false).is_none());
        assert_eq!(
            editing_tool("Adobe Acrobat Pro (64-bit) 24.1", "", false)
                .unwrap()
                .name,
            "Adobe Acrobat"
        );
        assert_eq!(
            editing_tool("Skia/PDF m156", "iLovePDF", false)
                .unwrap()
                .name,
            "iLovePDF"
        );
        assert!(editing_tool("macOS Version 14.5 Quartz PDFContext", "Pages", false).is_none());
        assert_eq!(
            editing_tool("macOS Version 14.5 Quartz PDFContext", "", true)
                .unwrap()
                .name,
            "macOS Preview"
        );
        assert!(editing_tool("LibreOffice 24.2", "Writer", false).is_none());
        assert_eq!(
            editing_tool("LibreOffice 24.2", "Draw", false)
                .unwrap()
                .name,
            "LibreOffice Draw"
        );
        assert!(editing_tool("Skia/PDF m156", "HeadlessChrome", false).is_none());
    }
}
