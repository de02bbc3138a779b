//! Edited copies of a genuine PDF, made the ways forgers make them.

use lopdf::{Dictionary, Document, Object, Stream, dictionary};

use domain::documents::samples::edits as made;

/// An incremental update appended to the file: a new amount drawn over the old one.
pub fn incremental_overlay(bytes: &[u8], old: &str, new: &str) -> Vec<u8> {
    made::incremental_overlay(bytes, old, new).expect("an appended edit")
}

/// The same drawing written into the file's content, the whole file saved again.
pub fn rewritten_overlay(bytes: &[u8], old: &str, new: &str) -> Vec<u8> {
    made::rewritten_overlay(bytes, old, new).expect("a rewritten edit")
}

fn save(doc: Document) -> Vec<u8> {
    made::save(doc).expect("a saved PDF")
}

/// Saved again by an editing tool: its producer, and a modification two days after creation.
pub fn resaved_by(bytes: &[u8], producer: &str) -> Vec<u8> {
    made::resaved_by(bytes, producer).expect("a re-saved PDF")
}

/// A page that is one JPEG (a scan), with `hidden_text` drawn invisibly over it as a scanner's
/// recognised text would be.
pub fn scan_pdf(jpeg: &[u8], width: i64, height: i64, hidden_text: Option<&str>) -> Vec<u8> {
    made::scan_pdf(made::jpeg_image(jpeg, width, height), hidden_text).expect("a scan PDF")
}

/// A document of `pages` pages sharing one content stream, with these resources.
pub fn page_doc(
    doc: Document,
    content: lopdf::ObjectId,
    resources: Dictionary,
    pages: usize,
) -> Vec<u8> {
    made::page_doc(doc, content, resources, pages).expect("a PDF")
}

/// A small text PDF made with lopdf, the catalog given extra entries.
pub fn text_pdf_with(extra: impl FnOnce(&mut Document) -> Dictionary) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let font = doc.add_object(
        dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica" },
    );
    let content = doc.add_object(Stream::new(
        Dictionary::new(),
        b"BT /F1 12 Tf 72 700 Td (Net Pay 1,467.00) Tj ET".to_vec(),
    ));
    let entries = extra(&mut doc);
    let bytes = page_doc(
        doc,
        content,
        dictionary! { "Font" => dictionary! { "F1" => font } },
        1,
    );
    let mut doc = Document::load_mem(&bytes).unwrap();
    let root = doc.trailer.get(b"Root").unwrap().as_reference().unwrap();
    let catalog = doc.get_dictionary_mut(root).unwrap();
    for (k, v) in entries.iter() {
        catalog.set(k.clone(), v.clone());
    }
    save(doc)
}

/// The amount's glyphs replaced in the content stream by other digits of the same font (the
/// careful forger's edit: nothing drawn over, no other font).
pub fn replaced_in_content(bytes: &[u8], old: &str, new: &str) -> Vec<u8> {
    let mut doc = Document::load_mem(bytes).unwrap();
    let page_id = doc.page_iter().next().unwrap();
    let fonts: Vec<(Vec<u8>, lopdf::Dictionary)> = doc
        .get_page_fonts(page_id)
        .unwrap()
        .into_iter()
        .map(|(name, dict)| (name, dict.clone()))
        .collect();
    let content_id = doc.get_page_contents(page_id)[0];
    let stream = doc.get_object(content_id).unwrap().as_stream().unwrap();
    let mut content =
        lopdf::content::Content::decode(&stream.decompressed_content().unwrap()).unwrap();
    // Each font's codes by the character they stand for, from every string drawn in it.
    let mut codes: std::collections::BTreeMap<(Vec<u8>, char), Vec<u8>> = Default::default();
    let mut target = None;
    let mut font = vec![];
    for (i, op) in content.operations.iter().enumerate() {
        if op.operator == "Tf" {
            font = op.operands[0].as_name().unwrap().to_vec();
        }
        let Some(Object::String(raw, _)) = op.operands.first().filter(|_| op.operator == "Tj")
        else {
            continue;
        };
        let dict = &fonts.iter().find(|(n, _)| *n == font).unwrap().1;
        let encoding = dict.get_font_encoding(&doc).unwrap();
        let mut text = String::new();
        for code in raw.chunks(2) {
            let c = encoding.bytes_to_string(code).unwrap();
            codes.insert((font.clone(), c.chars().next().unwrap()), code.to_vec());
            text.push_str(&c);
        }
        if text == old {
            target = Some((i, font.clone()));
        }
    }
    let (index, font) = target.unwrap_or_else(|| panic!("no string '{old}' in the content"));
    let replacement: Vec<u8> = new
        .chars()
        .flat_map(|c| {
            codes
                .get(&(font.clone(), c))
                .unwrap_or_else(|| panic!("'{c}' is not drawn in that font"))
                .clone()
        })
        .collect();
    content.operations[index].operands[0] =
        Object::String(replacement, lopdf::StringFormat::Hexadecimal);
    let encoded = content.encode().unwrap();
    doc.get_object_mut(content_id)
        .unwrap()
        .as_stream_mut()
        .unwrap()
        .set_plain_content(encoded);
    save(doc)
}

/// A FreeText annotation laid over an amount, showing another.
pub fn annotated(bytes: &[u8], old: &str, new: &str) -> Vec<u8> {
    made::annotated(bytes, old, new).expect("an annotated PDF")
}
