//! The page around the canvas: its query, `window.timestepLab`, the touch
//! controls, the tour's progress and where the page goes next.
//!
//! ```text
//! #actions   ☰ Controls · Compare cards · Measure this screen   (bottom right, ≥ 44 CSS px)
//! #controls  one button per key of the key table that applies here, named for what it does
//! #progress  the tour: which strategy runs, how long is left
//! #message   errors in red; how a run ended, with "Start again"
//! ```
//!
//! The links come from the page's command (`commands::page`), which knows
//! which parameters a tour and a run take: this module only follows them.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast as _;

use super::dom::{Listener, document, element, keep, logged};
use crate::platform::PageControl;

thread_local! {
    /// The last stats the app published, as JSON text.
    static STATS: RefCell<String> = const { RefCell::new(String::new()) };
    /// `window.timestepLab`'s functions: owned here for the page's life.
    static API: RefCell<Option<wasm_bindgen::closure::Closure<dyn Fn() -> wasm_bindgen::JsValue>>> =
        const { RefCell::new(None) };
    /// The query that starts this page again without ending at once (no tour, no exit-after).
    static AGAIN: RefCell<String> = RefCell::new("?".to_owned());
    /// The touch controls' listeners.
    static CONTROLS: RefCell<Vec<Listener>> = const { RefCell::new(Vec::new()) };
}

/// The page's query string (`?strategy=fuzzy&tick-rate=60`), empty when there is none.
pub fn page_query() -> String {
    let search = web_sys::window().map(|w| w.location().search());
    search.and_then(|s| logged(s, "read the page's query")).unwrap_or_default()
}

/// Points the page's links where its command says: "Measure this screen"
/// at `tour` (`?measure&…` with the parameters a tour takes) and "Start
/// again" at `again` (this run without what ends it); `parameters` (those
/// the page takes) go to the Controls panel.
pub(crate) fn set_links(tour: &str, again: &str, parameters: &str) {
    AGAIN.with(|a| again.clone_into(&mut a.borrow_mut()));
    let Some(document) = document() else { return };
    if let Some(list) = document.get_element_by_id("parameters") {
        list.set_text_content(Some(parameters));
    }
    if let Some(measure) = document.get_element_by_id("measure") {
        logged(measure.set_attribute("href", tour), "point the measure button at the tour");
    }
}

/// The query "Start again" opens (see [`set_links`]).
pub(super) fn again_query() -> String {
    AGAIN.with(|a| a.borrow().clone())
}

/// Starts the report-card tour as the page's button does (which offers a
/// name for the card first).
pub(crate) fn start_tour() {
    let Some(document) = document() else { return };
    match document.get_element_by_id("measure").and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        Some(button) => button.click(),
        None => log::warn!("the page has no measure button"),
    }
}

/// The tour is over: the page's address drops `?measure`, so that a reload
/// does not run it again, and the card (`card_json`) goes to the page's script as
/// `timestepLab.card` with a `timestep-lab-card` event (a page served by
/// `timestep-lab serve` posts it to the gallery: web/index.html).
pub(crate) fn tour_finished(card_json: &str) {
    let Some(window) = web_sys::window() else { return };
    if let Some(history) = logged(window.history(), "reach the page's history") {
        let again = again_query();
        logged(
            history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&again)),
            "take ?measure off the address",
        );
    }
    let api = js_sys::Reflect::get(&window, &"timestepLab".into())
        .ok()
        .filter(wasm_bindgen::JsValue::is_object)
        .unwrap_or_else(|| js_sys::Object::new().into());
    let published = js_sys::Reflect::set(&api, &"card".into(), &card_json.into())
        .and_then(|_| js_sys::Reflect::set(&window, &"timestepLab".into(), &api));
    logged(published, "hand the card to the page");
    if let Some(event) = logged(web_sys::Event::new("timestep-lab-card"), "make the card's event") {
        logged(window.dispatch_event(&event), "announce the card");
    }
}

/// Shows the tour's progress line on the page (`None`: takes it away).
pub(crate) fn show_progress(line: Option<&str>) {
    let Some(document) = document() else { return };
    let Some(progress) = element(&document, "progress", "p") else { return };
    progress.set_text_content(line);
    let class = if line.is_some() { "shown" } else { "" };
    logged(progress.set_attribute("class", class), "show the tour's progress");
}

/// Keeps `json` (the object `run --stats-json` writes) for
/// `window.timestepLab.stats()`, which it installs on the first call.
pub(crate) fn publish_stats(json: String) {
    let first = STATS.with(|stats| {
        let mut stats = stats.borrow_mut();
        let first = stats.is_empty();
        *stats = json;
        first
    });
    if first {
        install_page_api();
    }
}

/// `window.timestepLab = { stats() }`: the figures the overlay shows, as the
/// same JSON object `run --stats-json` writes (tests read it, and so can users).
fn install_page_api() {
    let Some(window) = web_sys::window() else { return };
    let stats = wasm_bindgen::closure::Closure::<dyn Fn() -> wasm_bindgen::JsValue>::new(|| {
        STATS.with(|s| js_sys::JSON::parse(&s.borrow()).unwrap_or(wasm_bindgen::JsValue::NULL))
    });
    let api = js_sys::Object::new();
    let installed = js_sys::Reflect::set(&api, &"stats".into(), stats.as_ref())
        .and_then(|_| js_sys::Reflect::set(&window, &"timestepLab".into(), &api));
    logged(installed, "install window.timestepLab");
    API.with(|a| *a.borrow_mut() = Some(stats));
}

/// Puts a button for each of `controls` in the page's control panel (opened
/// by ☰); a tap calls `act(i, true)`, a held control `act(i, false)` on release.
pub(crate) fn install_controls(controls: &[PageControl], act: impl FnMut(usize, bool) + 'static) {
    let Some(document) = document() else { return };
    let (Some(panel), Some(buttons)) =
        (document.get_element_by_id("controls"), document.get_element_by_id("control-buttons"))
    else {
        log::warn!("the page has no #controls panel: keys only");
        return;
    };
    buttons.set_inner_html("");
    let act: Rc<RefCell<dyn FnMut(usize, bool)>> = Rc::new(RefCell::new(act));
    let mut listeners = Vec::new();
    for (i, control) in controls.iter().enumerate() {
        let Some(button) = logged(document.create_element("button"), "make a control") else { continue };
        button.set_text_content(Some(&control.label));
        for (attribute, value) in [
            ("type", "button"),
            ("aria-label", &control.name),
            ("title", &format!("{} ({})", control.name, control.key)),
        ] {
            logged(button.set_attribute(attribute, value), "name a control");
        }
        logged(buttons.append_child(&button), "add a control");
        let events: &[(&'static str, bool)] = if control.held {
            &[("pointerdown", true), ("pointerup", false), ("pointercancel", false), ("pointerleave", false)]
        } else {
            &[("click", true)]
        };
        for &(event, pressed) in events {
            let act = Rc::clone(&act);
            listeners.extend(Listener::add(&button, event, move |e| {
                e.prevent_default();
                (act.borrow_mut())(i, pressed);
            }));
        }
    }
    CONTROLS.with(|c| *c.borrow_mut() = listeners);
    if let Some(toggle) = document.get_element_by_id("controls-toggle") {
        logged(toggle.remove_attribute("hidden"), "show the controls button");
        let panel = panel.clone();
        keep(
            "controls-toggle",
            Listener::add(&toggle.clone(), "click", move |_| {
                let open = panel.has_attribute("hidden");
                let shown = if open { panel.remove_attribute("hidden") } else { panel.set_attribute("hidden", "") };
                logged(shown, "open or close the controls");
                logged(toggle.set_attribute("aria-expanded", if open { "true" } else { "false" }), "mark the button");
            }),
        );
    }
}
