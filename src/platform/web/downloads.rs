//! Downloads: bytes offered as a file, through a link in the page's list of
//! downloads (clicked at once; it stays for the user to click again).

use wasm_bindgen::JsCast as _;

use super::dom::{describe, document, element};

/// Offers `bytes` as the file `name`: a link in the page's list of
/// downloads, clicked at once. A browser may hold back a second automatic
/// download of the same page until the user allows it; the link stays for
/// them to click (its object URL lives as long as the page).
///
/// # Errors
/// One line when the page cannot make the download (no document, a blocked
/// object URL).
pub(super) fn download(name: &str, bytes: &[u8]) -> Result<(), String> {
    let js = |e: wasm_bindgen::JsValue| describe(&e);
    let document = document().ok_or("no document")?;
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(js)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(js)?;
    let anchor: web_sys::HtmlAnchorElement =
        document.create_element("a").map_err(js)?.dyn_into().map_err(|_| "not an anchor".to_owned())?;
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.set_text_content(Some(name));
    let list = element(&document, "downloads", "nav").ok_or("the page has no list of downloads")?;
    list.append_child(&anchor).map_err(js)?;
    anchor.click();
    Ok(())
}
