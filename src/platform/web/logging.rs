//! The page's logger: `log` records to the browser's console, at their own
//! levels; the GPU stack (wgpu, naga, winit) only from warnings up.

/// Logs `info` and above to the browser's console (warnings and errors at their own levels).
struct ConsoleLogger;

impl log::Log for ConsoleLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        let gpu_stack = ["wgpu", "naga", "winit"].iter().any(|p| metadata.target().starts_with(p));
        metadata.level() <= if gpu_stack { log::Level::Warn } else { log::Level::Info }
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let text = wasm_bindgen::JsValue::from_str(&format!("{}: {}", record.target(), record.args()));
        match record.level() {
            log::Level::Error => web_sys::console::error_1(&text),
            log::Level::Warn => web_sys::console::warn_1(&text),
            _ => web_sys::console::log_1(&text),
        }
    }

    fn flush(&self) {}
}

/// The page shows its progress and end on the page; its console keeps every line.
pub fn init_quiet_logger() {
    init_logger();
}

/// Installs the console logger; another logger set first wins.
pub fn init_logger() {
    static LOGGER: ConsoleLogger = ConsoleLogger;
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
    }
}
