//! The page's document and the browser calls on it: the elements the page
//! makes, a failed call logged (never dropped silently), and the one owner
//! of the closures the page hands the browser ([`Listener`]). Beneath both
//! the message box and the page's UI.

use wasm_bindgen::JsCast as _;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;

/// `result`'s value; its error logged as "cannot `what`" (a browser call that
/// failed is never dropped silently).
pub(super) fn logged<T>(result: Result<T, JsValue>, what: &str) -> Option<T> {
    match result {
        Ok(value) => Some(value),
        Err(err) => {
            log::warn!("cannot {what}: {}", describe(&err));
            None
        }
    }
}

/// A JavaScript error as one line (its message where it has one).
pub(super) fn describe(err: &JsValue) -> String {
    err.dyn_ref::<js_sys::Error>().map_or_else(|| format!("{err:?}"), |e| String::from(e.message()))
}

/// The page's document, logged when there is none (a worker).
pub(super) fn document() -> Option<web_sys::Document> {
    let document = web_sys::window().and_then(|w| w.document());
    if document.is_none() {
        log::warn!("no document: the page cannot show anything");
    }
    document
}

/// The element `id`, made as a `tag` at the end of the body when the page lacks it.
pub(super) fn element(document: &web_sys::Document, id: &str, tag: &str) -> Option<web_sys::Element> {
    if let Some(found) = document.get_element_by_id(id) {
        return Some(found);
    }
    let made = logged(document.create_element(tag), &format!("make the page's #{id}"))?;
    made.set_id(id);
    let body = document.body()?;
    logged(body.append_child(&made), &format!("add #{id} to the page"))?;
    Some(made)
}

/// An event listener the page keeps: the closure lives here, and the
/// listener is removed when this is dropped (eframe's way: no `forget`).
pub(super) struct Listener {
    target: web_sys::EventTarget,
    event: &'static str,
    closure: Closure<dyn FnMut(web_sys::Event)>,
}

impl Listener {
    /// Listens for `event` on `target`; `None` (logged) when the browser refuses.
    pub(super) fn add(
        target: &web_sys::EventTarget,
        event: &'static str,
        handler: impl FnMut(web_sys::Event) + 'static,
    ) -> Option<Listener> {
        let closure = Closure::<dyn FnMut(web_sys::Event)>::new(handler);
        let added = target.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
        logged(added, &format!("listen for {event}"))?;
        Some(Listener { target: target.clone(), event, closure })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let removed =
            self.target.remove_event_listener_with_callback(self.event, self.closure.as_ref().unchecked_ref());
        logged(removed, &format!("stop listening for {}", self.event));
    }
}

thread_local! {
    /// The page's listeners, by what they are for; one of a kind: a second replaces the first.
    static LISTENERS: std::cell::RefCell<Vec<(&'static str, Listener)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Keeps `listener` for the page's life, under `purpose` (replacing an earlier one for it).
pub(super) fn keep(purpose: &'static str, listener: Option<Listener>) {
    let Some(listener) = listener else { return };
    // The old one drops outside the borrow: its Drop calls the browser.
    let old = LISTENERS.with(|all| {
        let mut all = all.borrow_mut();
        let old = all.iter().position(|(p, _)| *p == purpose).map(|i| all.swap_remove(i));
        all.push((purpose, listener));
        old
    });
    drop(old);
}
