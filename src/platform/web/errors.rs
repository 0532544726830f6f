//! What the page tells its user, and what it does with a browser call that
//! fails: a message box over the canvas (an error, or how a run ended and how
//! to start again), panics shown there too, failures logged to the console.
//! Also the one owner of the closures the page hands the browser ([`Listener`]).

use wasm_bindgen::JsCast as _;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;

/// How a message reads: `error` in red, `ending` and `note` calm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Error,
    Ending,
    Note,
}

impl Kind {
    fn class(self) -> &'static str {
        match self {
            Kind::Error => "shown error",
            Kind::Ending => "shown ending",
            Kind::Note => "shown note",
        }
    }
}

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

fn show(message: &str, kind: Kind) {
    let Some(document) = document() else { return };
    let Some(element) = element(&document, "message", "p") else { return };
    element.set_text_content(Some(message));
    logged(element.set_attribute("class", kind.class()), "show the message");
    if kind == Kind::Ending {
        // How to start again: the same page without the parameters that end it.
        if let Some(again) = logged(document.create_element("a"), "make the start-again link") {
            again.set_text_content(Some("Start again"));
            logged(again.set_attribute("href", &super::page::again_query()), "link the start-again button");
            logged(again.set_attribute("id", "again"), "name the start-again button");
            logged(element.append_child(&again), "add the start-again button");
        }
    }
}

/// Shows `message` on the page, over the canvas, where a user who opened the
/// page sees it (a bad query parameter, no GPU): never a blank canvas.
pub fn show_message(message: &str) {
    log::error!("{message}");
    show(message, Kind::Error);
}

/// An error that ends the run after start-up (no GPU adapter, a lost
/// device): the page cannot return it to anyone, so it shows it.
pub fn report_error(message: &str) {
    show_message(&format!("timestep-lab: {message}"));
}

/// How the run ended (Esc, `exit-after`, a finished tour), with a button
/// that starts again: a page never just freezes on its last frame.
pub fn show_ending(message: &str) {
    log::info!("{message}");
    show(message, Kind::Ending);
}

/// Shows `message` on the page, calmly (an emulated rate the screen cannot give).
pub fn notify(message: &str) {
    log::info!("{message}");
    show(message, Kind::Note);
}

/// A panic (a bug) is shown on the page and logged to the console with its
/// message, instead of leaving a frozen canvas and `unreachable` in the console.
pub fn report_panics_on_page() {
    std::panic::set_hook(Box::new(|info| {
        let message = format!("timestep-lab stopped on a bug: {info}");
        web_sys::console::error_1(&JsValue::from_str(&message));
        show(&message, Kind::Error);
    }));
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
