//! A swap chain's frames and metrics as CSV, with PresentMon's column names.

use super::{CaptureChain, FrameMetrics, Ticks, ticks_to_ms};

/// The frames CSV header: PresentMon's names where PresentMon has the column.
pub const FRAMES_HEADER: &str = "Line,Application,ProcessID,SwapChainAddress,FrameType,CPUStartTime,MsBetweenPresents,\
MsBetweenDisplayChange,DisplayedTime,DisplayLatency,AnimationError,AnimationSource";

/// One swap chain's frames as CSV, one row per frame (times in ms; `CPUStartTime`
/// from the chain's first CPU start), NA where a metric has no value.
pub fn frames_csv(chain: &CaptureChain, metrics: &[FrameMetrics], hz: u64) -> String {
    let decimals = if hz <= 10_000_000 { 4 } else { 6 };
    let ms = |t: Option<Ticks>| t.map_or_else(|| "NA".to_owned(), |t| format!("{:.decimals$}", ticks_to_ms(t, hz)));
    let origin = chain.frames.iter().filter_map(|f| f.cpu_start).min();
    let quote = |s: &str| if s.contains([',', '"']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_owned() };
    let mut out = String::with_capacity(64 * (chain.frames.len() + 1));
    out.push_str(FRAMES_HEADER);
    out.push('\n');
    for (frame, m) in chain.frames.iter().zip(metrics) {
        let source = match (frame.sim, m.animation_error) {
            (Some((_, source)), Some(_)) => source.name(),
            _ => "NA",
        };
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{}\n",
            frame.line,
            quote(&chain.app),
            quote(&chain.pid),
            quote(&chain.address),
            quote(&frame.frame_type),
            ms(frame.cpu_start.zip(origin).map(|(c, o)| c - o)),
            ms(frame.frame_time),
            ms(m.display_change),
            ms(m.displayed_time),
            ms(m.display_latency),
            ms(m.animation_error),
            source
        ));
    }
    out
}
