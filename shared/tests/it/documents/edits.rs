//! Edited copies of a genuine PDF, made the ways forgers make them.

use lopdf::{Dictionary, Document, IncrementalDocument, Object, Stream, dictionary};

/// Where a text run is drawn on page 1, in PDF coordinates (x, baseline y, size).
pub fn position_of(bytes: &[u8], text: &str) -> (f32, f32, f32) {
    let doc = Document::load_mem(bytes).unwrap();
    let pages = shared::documents::text::read_pages(&doc, &Default::default()).unwrap();
    let run = pages[0]
        .runs()
        .find(|r| r.text.trim() == text)
        .unwrap_or_else(|| panic!("no run '{text}'"));
    (run.x, 792.0 - run.y, run.size)
}

/// Draws `text` in Helvetica over page 1 at (x, y), on a white box hiding what was there.
fn draw_over(target: &mut Document, source: &Document, at: (f32, f32, f32), text: &str) {
    let page_id = source.page_iter().next().unwrap();
    let (x, y, size) = at;
    let font = target.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica", "Encoding" => "WinAnsiEncoding",
    });
    let ops = format!(
        "q 1 1 1 rg {} {} {} {} re f 0 0 0 rg BT /FEdit {size} Tf {x} {y} Td ({text}) Tj ET Q",
        x - 1.0,
        y - 3.0,
        size * 6.0,
        size + 4.0
    );
    let content = target.add_object(Stream::new(Dictionary::new(), ops.into_bytes()));
    let mut page = source.get_dictionary(page_id).unwrap().clone();
    let mut contents: Vec<Object> = source
        .get_page_contents(page_id)
        .into_iter()
        .map(Object::Reference)
        .collect();
    contents.push(Object::Reference(content));
    page.set("Contents", contents);
    let resolve = |o: &Object| source.dereference(o).unwrap().1.as_dict().unwrap().clone();
    let mut resources = resolve(page.get(b"Resources").unwrap());
    let mut fonts = resources.get(b"Font").map(resolve).unwrap_or_default();
    fonts.set("FEdit", Object::Reference(font));
    resources.set("Font", fonts);
    page.set("Resources", resources);
    target.objects.insert(page_id, Object::Dictionary(page));
}

/// An incremental update appended to the file: a new amount drawn over the old one.
pub fn incremental_overlay(bytes: &[u8], old: &str, new: &str) -> Vec<u8> {
    let at = position_of(bytes, old);
    let prev = Document::load_mem(bytes).unwrap();
    let mut inc = IncrementalDocument::create_from(bytes.to_vec(), prev.clone());
    draw_over(&mut inc.new_document, &prev, at, new);
    let mut out = vec![];
    inc.save_to(&mut out).unwrap();
    out
}

/// The same drawing written into the file's content, the whole file saved again.
pub fn rewritten_overlay(bytes: &[u8], old: &str, new: &str) -> Vec<u8> {
    let at = position_of(bytes, old);
    let source = Document::load_mem(bytes).unwrap();
    let mut doc = source.clone();
    draw_over(&mut doc, &source, at, new);
    save(doc)
}

fn save(mut doc: Document) -> Vec<u8> {
    let mut out = vec![];
    doc.save_to(&mut out).unwrap();
    out
}

/// Saved again by an editing tool: its producer, and a modification two days after creation.
pub fn resaved_by(bytes: &[u8], producer: &str) -> Vec<u8> {
    let mut doc = Document::load_mem(bytes).unwrap();
    let info_id = doc.trailer.get(b"Info").unwrap().as_reference().unwrap();
    let info = doc.get_dictionary_mut(info_id).unwrap();
    info.set("Producer", Object::string_literal(producer));
    info.set("CreationDate", Object::string_literal("D:20261106090000Z"));
    info.set("ModDate", Object::string_literal("D:20261108173000Z"));
    save(doc)
}

/// A page that is one image (a scan): the JPEG drawn over the whole letter-size page, with
/// `hidden_text` drawn invisibly over it as a scanner's recognised text would be.
pub fn scan_pdf(jpeg: &[u8], width: i64, height: i64, hidden_text: Option<&str>) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let image = doc.add_object(Stream::new(
        dictionary! {
            "Type" => "XObject", "Subtype" => "Image", "Width" => width, "Height" => height,
            "ColorSpace" => "DeviceRGB", "BitsPerComponent" => 8, "Filter" => "DCTDecode",
        },
        jpeg.to_vec(),
    ));
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let mut ops = "q 612 0 0 792 0 0 cm /Im0 Do Q".to_string();
    if let Some(text) = hidden_text {
        ops.push_str(&format!(" BT 3 Tr /F1 11 Tf 40 700 Td ({text}) Tj ET"));
    }
    let content = doc.add_object(Stream::new(Dictionary::new(), ops.into_bytes()));
    page_doc(
        doc,
        content,
        dictionary! {
            "XObject" => dictionary! { "Im0" => image },
            "Font" => dictionary! { "F1" => font },
        },
        1,
    )
}

/// A document of `pages` pages sharing one content stream, with these resources.
pub fn page_doc(
    mut doc: Document,
    content: lopdf::ObjectId,
    resources: Dictionary,
    pages: usize,
) -> Vec<u8> {
    let pages_id = doc.new_object_id();
    let kids: Vec<Object> = (0..pages)
        .map(|_| {
            Object::Reference(doc.add_object(dictionary! {
                "Type" => "Page", "Parent" => pages_id, "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
                "Contents" => content, "Resources" => resources.clone(),
            }))
        })
        .collect();
    doc.objects.insert(
        pages_id,
        Object::Dictionary(
            dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => pages as i64 },
        ),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    save(doc)
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
    let (x, y, size) = position_of(bytes, old);
    let mut doc = Document::load_mem(bytes).unwrap();
    let page_id = doc.page_iter().next().unwrap();
    let annot = doc.add_object(dictionary! {
        "Type" => "Annot", "Subtype" => "FreeText",
        "Rect" => vec![(x - 1.0).into(), (y - 3.0).into(), (x + size * 6.0).into(), (y + size).into()],
        "Contents" => Object::string_literal(new), "DA" => Object::string_literal("/Helv 9 Tf 0 g"),
    });
    let page = doc.get_dictionary_mut(page_id).unwrap();
    page.set("Annots", vec![Object::Reference(annot)]);
    save(doc)
}
