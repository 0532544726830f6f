//! What the page tells its user: a message box over the canvas (an error, or
//! how a run ended and how to start again), panics shown there too.

use wasm_bindgen::JsValue;

use super::dom::{document, element, logged};

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

fn show(message: &str, kind: Kind) {
    let Some(document) = document() else { return };
    let Some(element) = element(&document, "message", "p") else { return };
    element.set_text_content(Some(message));
    logged(element.set_attribute("class", kind.class()), "show the message");
    if kind == Kind::Ending {
        // How to start again: the same page without the parameters that end it.
        if let Some(again) = logged(document.create_element("a"), "make the start-again link") {
            again.set_text_content(Some("Start again"));
            logged(again.set_attribute("href", &super::page_ui::again_query()), "link the start-again button");
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
pub(crate) fn report_error(message: &str) {
    show_message(&format!("timestep-lab: {message}"));
}

/// How the run ended (Esc, `exit-after`, a finished tour), with a button
/// that starts again: a page never just freezes on its last frame.
pub(crate) fn show_ending(message: &str) {
    log::info!("{message}");
    show(message, Kind::Ending);
}

/// Shows `message` on the page, calmly (an emulated rate the screen cannot give).
pub(crate) fn notify(message: &str) {
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
