//! Edited copies of a genuine PDF, made the ways forgers make them: the sandbox's samples and
//! the tests' fixtures both come from here. Each returns None when the file is not one it can
//! edit (the text to cover is missing, or the PDF does not load).

use lopdf::{Dictionary, Document, IncrementalDocument, Object, Stream, dictionary};

/// Where a text run is drawn on page 1, in PDF coordinates (x, baseline y, size).
pub fn position_of(bytes: &[u8], text: &str) -> Option<(f32, f32, f32)> {
    let doc = Document::load_mem(bytes).ok()?;
    let pages = super::super::text::read_pages(&doc, &Default::default()).ok()?;
    let page = pages.first()?;
    let height = 792.0;
    page.runs()
        .find(|r| r.text.trim() == text)
        .map(|run| (run.x, height - run.y, run.size))
}

/// Draws `text` in Helvetica over page 1 at (x, y), on a white box hiding what was there.
fn draw_over(
    target: &mut Document,
    source: &Document,
    at: (f32, f32, f32),
    text: &str,
) -> Option<()> {
    let page_id = source.page_iter().next()?;
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
    let mut page = source.get_dictionary(page_id).ok()?.clone();
    let mut contents: Vec<Object> = source
        .get_page_contents(page_id)
        .into_iter()
        .map(Object::Reference)
        .collect();
    contents.push(Object::Reference(content));
    page.set("Contents", contents);
    let resolve = |o: &Object| -> Option<Dictionary> {
        Some(source.dereference(o).ok()?.1.as_dict().ok()?.clone())
    };
    let mut resources = resolve(page.get(b"Resources").ok()?)?;
    let mut fonts = match resources.get(b"Font") {
        Ok(f) => resolve(f)?,
        Err(_) => Dictionary::new(),
    };
    fonts.set("FEdit", Object::Reference(font));
    resources.set("Font", fonts);
    page.set("Resources", resources);
    target.objects.insert(page_id, Object::Dictionary(page));
    Some(())
}

/// An incremental update appended to the file: a new amount drawn over the old one.
pub fn incremental_overlay(bytes: &[u8], old: &str, new: &str) -> Option<Vec<u8>> {
    let at = position_of(bytes, old)?;
    let prev = Document::load_mem(bytes).ok()?;
    let mut inc = IncrementalDocument::create_from(bytes.to_vec(), prev.clone());
    draw_over(&mut inc.new_document, &prev, at, new)?;
    let mut out = vec![];
    inc.save_to(&mut out).ok()?;
    Some(out)
}

/// The same drawing written into the file's content, the whole file saved again.
pub fn rewritten_overlay(bytes: &[u8], old: &str, new: &str) -> Option<Vec<u8>> {
    let at = position_of(bytes, old)?;
    let source = Document::load_mem(bytes).ok()?;
    let mut doc = source.clone();
    draw_over(&mut doc, &source, at, new)?;
    save(doc)
}

/// A signature appended as an incremental update, as payroll portals and e-signing services add
/// one: its dictionary (`/Name` the signer), an invisible widget of a signature field, the form,
/// the catalog and page pointing at them, and a later modification date. With `edit`, the update
/// also draws a new figure over an old one (`(old, new)`): a signature beside a content change.
pub fn signed(bytes: &[u8], signer: &str, edit: Option<(&str, &str)>) -> Option<Vec<u8>> {
    let prev = Document::load_mem(bytes).ok()?;
    let mut inc = IncrementalDocument::create_from(bytes.to_vec(), prev.clone());
    if let Some((old, new)) = edit {
        let at = position_of(bytes, old)?;
        draw_over(&mut inc.new_document, &prev, at, new)?;
    }
    let earlier = bytes.len() as i64;
    let doc = &mut inc.new_document;
    let sig = doc.add_object(dictionary! {
        "Type" => "Sig", "Filter" => "Adobe.PPKLite", "SubFilter" => "adbe.pkcs7.detached",
        "Name" => Object::string_literal(signer), "M" => Object::string_literal("D:20261110120000Z"),
        "ByteRange" => vec![0.into(), (earlier + 420).into(), (earlier + 8_614).into(), 900.into()],
        "Contents" => Object::String(vec![0; 4_096], lopdf::StringFormat::Hexadecimal),
    });
    let page_id = prev.page_iter().next()?;
    let widget = doc.add_object(dictionary! {
        "Type" => "Annot", "Subtype" => "Widget", "FT" => "Sig", "T" => Object::string_literal("Signature1"),
        "V" => sig, "Rect" => vec![0.into(), 0.into(), 0.into(), 0.into()], "F" => 132, "P" => page_id,
    });
    let mut page = match doc.objects.get(&page_id) {
        Some(Object::Dictionary(d)) => d.clone(),
        _ => prev.get_dictionary(page_id).ok()?.clone(),
    };
    page.set("Annots", vec![Object::Reference(widget)]);
    doc.objects.insert(page_id, Object::Dictionary(page));
    let root = prev.trailer.get(b"Root").ok()?.as_reference().ok()?;
    let mut catalog = prev.get_dictionary(root).ok()?.clone();
    catalog.set(
        "AcroForm",
        dictionary! { "Fields" => vec![Object::Reference(widget)], "SigFlags" => 3 },
    );
    doc.objects.insert(root, Object::Dictionary(catalog));
    if let Ok(info) = prev.trailer.get(b"Info").and_then(Object::as_reference) {
        let mut dict = prev.get_dictionary(info).ok()?.clone();
        dict.set("ModDate", Object::string_literal("D:20261110120000Z"));
        doc.objects.insert(info, Object::Dictionary(dict));
    }
    let mut out = vec![];
    inc.save_to(&mut out).ok()?;
    Some(out)
}

/// The document written out whole.
pub fn save(mut doc: Document) -> Option<Vec<u8>> {
    let mut out = vec![];
    doc.save_to(&mut out).ok()?;
    Some(out)
}

/// Saved again by an editing tool: its producer, and a modification two days after creation.
pub fn resaved_by(bytes: &[u8], producer: &str) -> Option<Vec<u8>> {
    let mut doc = Document::load_mem(bytes).ok()?;
    let info_id = doc.trailer.get(b"Info").ok()?.as_reference().ok()?;
    let info = doc.get_dictionary_mut(info_id).ok()?;
    info.set("Producer", Object::string_literal(producer));
    info.set("CreationDate", Object::string_literal("D:20261106090000Z"));
    info.set("ModDate", Object::string_literal("D:20261108173000Z"));
    save(doc)
}

/// A FreeText annotation laid over an amount, showing another.
pub fn annotated(bytes: &[u8], old: &str, new: &str) -> Option<Vec<u8>> {
    let (x, y, size) = position_of(bytes, old)?;
    let mut doc = Document::load_mem(bytes).ok()?;
    let page_id = doc.page_iter().next()?;
    let annot = doc.add_object(dictionary! {
        "Type" => "Annot", "Subtype" => "FreeText",
        "Rect" => vec![(x - 1.0).into(), (y - 3.0).into(), (x + size * 6.0).into(), (y + size).into()],
        "Contents" => Object::string_literal(new), "DA" => Object::string_literal("/Helv 9 Tf 0 g"),
    });
    let page = doc.get_dictionary_mut(page_id).ok()?;
    page.set("Annots", vec![Object::Reference(annot)]);
    save(doc)
}

/// A document of `pages` letter-size pages sharing one content stream, with these resources.
pub fn page_doc(
    mut doc: Document,
    content: lopdf::ObjectId,
    resources: Dictionary,
    pages: usize,
) -> Option<Vec<u8>> {
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

/// A page that is one image (a scan): the image drawn over the whole letter-size page, with
/// `hidden_text` drawn invisibly over it as a scanner's recognised text would be. `image` is
/// the image's stream dictionary and data (a JPEG with `DCTDecode`, or raw samples).
pub fn scan_pdf(image: Stream, hidden_text: Option<&str>) -> Option<Vec<u8>> {
    let mut doc = Document::with_version("1.5");
    let image = doc.add_object(image);
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

/// A JPEG's image stream, as a camera or a scanner gives it.
pub fn jpeg_image(jpeg: &[u8], width: i64, height: i64) -> Stream {
    Stream::new(
        dictionary! {
            "Type" => "XObject", "Subtype" => "Image", "Width" => width, "Height" => height,
            "ColorSpace" => "DeviceRGB", "BitsPerComponent" => 8, "Filter" => "DCTDecode",
        },
        jpeg.to_vec(),
    )
}

/// A one-bit image of `width` × `height` pixels, 1 for white, from rows of bits.
pub fn bitmap_image(width: i64, height: i64, rows: Vec<u8>) -> Stream {
    Stream::new(
        dictionary! {
            "Type" => "XObject", "Subtype" => "Image", "Width" => width, "Height" => height,
            "ColorSpace" => "DeviceGray", "BitsPerComponent" => 1,
        },
        rows,
    )
}
