//! Vulkan's `VK_GOOGLE_display_timing`: each present carries a present id
//! (`VkPresentTimeGOOGLE`, through wgpu-hal's
//! `vulkan::Surface::set_next_present_time`), and
//! `vkGetPastPresentationTimingGOOGLE` later returns, per id, the
//! `actualPresentTime` (ns, on `CLOCK_MONOTONIC` on Linux and Android)
//! when the image first showed; `vkGetRefreshCycleDurationGOOGLE` gives the
//! refresh.
//!
//! ```text
//!   presenting(n) → id i (a u32 that wraps) ─ present ─ … ─ past timings [{i, actual}, …]
//!   the oldest present waiting with id i is frame n: shown at actual − the lab's zero
//! ```
//!
//! The timings come in present order. A present the driver returns no
//! timing for, while later ones have one, was not shown as far as the
//! extension says (the spec does not say discarded): its frame gets no
//! word and stays an estimate. The device asks for
//! `Features::VULKAN_GOOGLE_DISPLAY_TIMING` where the adapter offers it
//! (`render/context.rs`), and on Linux the window then gives each present
//! an id and reads the past timings after it. Mesa's lavapipe (22.3, this
//! machine) lacks the extension, so only the conversion is tested here; a
//! driver that offers it but never answers is caught by the seam's watch.

use std::collections::VecDeque;

use timestep_core::feedback::Feedback;

use crate::time::Nanos;

/// The fields of `VkPastPresentationTimingGOOGLE` the lab uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PastTiming {
    /// The id given to the present.
    pub(crate) present_id: u32,
    /// When the image first showed, ns on the driver's clock.
    pub(crate) actual_present_time: u64,
}

/// Presents awaiting their timing that are kept at most.
const PENDING: usize = 64;

/// Gives presents their ids and turns past timings into display times.
#[derive(Clone, Debug, Default)]
pub(crate) struct Converter {
    /// `(id, frame)`, oldest first.
    pending: VecDeque<(u32, u64)>,
    next_id: u32,
    /// The lab clock's zero on the driver's clock, ns.
    zero: Nanos,
    /// The refresh `vkGetRefreshCycleDurationGOOGLE` gave last, ns.
    refresh: Nanos,
}

impl Converter {
    /// A converter for a lab clock whose zero is `zero` ns on the driver's clock; ids from `first_id`.
    pub(crate) fn new(zero: Nanos, first_id: u32) -> Converter {
        Converter { pending: VecDeque::with_capacity(PENDING), next_id: first_id, zero, refresh: 0 }
    }

    /// Frame `frame` is about to be presented: the id to chain to its present.
    pub(crate) fn presenting(&mut self, frame: u64) -> u32 {
        if self.pending.len() == PENDING {
            self.pending.pop_front();
        }
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        self.pending.push_back((id, frame));
        id
    }

    /// The display's refresh now, ns (it changes when the window moves to another monitor).
    pub(crate) fn set_refresh(&mut self, refresh: Nanos) {
        self.refresh = refresh;
    }

    /// Hands `take` the feedback of `timings` (in present order); the count handed.
    pub(crate) fn timings(&mut self, timings: &[PastTiming], take: &mut dyn FnMut(Feedback)) -> u64 {
        let mut n = 0;
        for t in timings {
            let Some(at) = self.pending.iter().position(|&(id, _)| id == t.present_id) else { continue };
            // Older presents without a timing: no word.
            self.pending.drain(..at);
            if let Some((_, frame)) = self.pending.pop_front() {
                let shown = t.actual_present_time.saturating_sub(self.zero);
                take(Feedback::displayed(frame, shown).with_refresh(self.refresh));
                n += 1;
            }
        }
        n
    }
}

/// The source on Linux, where `actualPresentTime` is on `CLOCK_MONOTONIC`.
#[cfg(target_os = "linux")]
mod imp {
    use ash::vk;
    use timestep_core::feedback::Feedback;
    use wgpu::hal::api::Vulkan;

    use super::{Converter, PastTiming};
    use crate::platform::display_time::{DisplayTimes, Gives, Gpu, clock_zero};
    use crate::time::RealClock;

    /// Present ids and past timings through ash, on wgpu's own device and swap chain.
    struct DisplayTiming {
        functions: ash::google::display_timing::Device,
        converter: Converter,
        /// Why reading the timings failed, where it did.
        failed: Option<String>,
    }

    /// The source, where the device has `VULKAN_GOOGLE_DISPLAY_TIMING`.
    ///
    /// # Errors
    /// Not a Vulkan device, or the adapter did not offer the extension.
    #[expect(
        unsafe_code,
        reason = "wgpu leaves vkGetPastPresentationTimingGOOGLE to the application: its device through as_hal"
    )]
    pub(crate) fn open(gpu: Gpu<'_>, clock: &RealClock) -> Result<Box<dyn DisplayTimes>, String> {
        if !gpu.device.features().contains(wgpu::Features::VULKAN_GOOGLE_DISPLAY_TIMING) {
            return Err("the adapter does not offer VK_GOOGLE_display_timing".to_owned());
        }
        // SAFETY: the handles are only read to build ash's function table;
        // the source is dropped before the device (the screen's first field).
        let functions = unsafe {
            let device = gpu.device.as_hal::<Vulkan>().ok_or("not a Vulkan device")?;
            ash::google::display_timing::Device::new(device.shared_instance().raw_instance(), device.raw_device())
        };
        let zero = clock_zero(clock, rustix::time::ClockId::Monotonic);
        Ok(Box::new(DisplayTiming { functions, converter: Converter::new(zero, 0), failed: None }))
    }

    impl DisplayTimes for DisplayTiming {
        fn name(&self) -> &'static str {
            "vk-google-display-timing"
        }

        fn gives(&self) -> Gives {
            Gives { display_time: true, refresh: true, skipped: false, copied: false }
        }

        #[expect(unsafe_code, reason = "wgpu-hal's surface sets the next present's VkPresentTimeGOOGLE")]
        fn presenting(&mut self, frame: u64, gpu: Gpu<'_>) {
            let id = self.converter.presenting(frame);
            // SAFETY: the surface is configured (a frame was acquired) and
            // its device has the feature (checked at open).
            if let Some(surface) = unsafe { gpu.surface.as_hal::<Vulkan>() } {
                surface.set_next_present_time(vk::PresentTimeGOOGLE { present_id: id, desired_present_time: 0 });
            }
        }

        #[expect(unsafe_code, reason = "ash's calls on wgpu's swap chain")]
        fn poll(&mut self, gpu: Gpu<'_>, take: &mut dyn FnMut(Feedback)) -> u64 {
            // SAFETY: the swap chain is wgpu's live one, read on the thread that presents on it.
            let Some(swapchain) = (unsafe { gpu.surface.as_hal::<Vulkan>() }).and_then(|s| s.raw_native_swapchain())
            else {
                return 0;
            };
            // SAFETY: as above; the extension is enabled on this device.
            let read = unsafe {
                self.functions
                    .get_refresh_cycle_duration(swapchain)
                    .and_then(|refresh| Ok((refresh, self.functions.get_past_presentation_timing(swapchain)?)))
            };
            match read {
                Ok((refresh, timings)) => {
                    self.converter.set_refresh(refresh.refresh_duration);
                    let timings: Vec<PastTiming> = timings
                        .iter()
                        .map(|t| PastTiming { present_id: t.present_id, actual_present_time: t.actual_present_time })
                        .collect();
                    self.converter.timings(&timings, take)
                }
                Err(e) => {
                    self.failed.get_or_insert_with(|| format!("vkGetPastPresentationTimingGOOGLE: {e}"));
                    0
                }
            }
        }

        fn silence(&self, presents: u64) -> String {
            match &self.failed {
                Some(why) => why.clone(),
                None => format!("VK_GOOGLE_display_timing timed none of the window's {presents} presents"),
            }
        }
    }
}

/// Elsewhere DXGI (Windows) or nothing the lab reads.
#[cfg(all(not(target_os = "linux"), not(target_arch = "wasm32")))]
mod imp {
    use crate::platform::display_time::{DisplayTimes, Gpu};
    use crate::time::RealClock;

    /// Not read here: the clock of `actualPresentTime` is the platform's.
    ///
    /// # Errors
    /// Always.
    pub(crate) fn open(_gpu: Gpu<'_>, _clock: &RealClock) -> Result<Box<dyn DisplayTimes>, String> {
        Err("read on Linux only".to_owned())
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub(crate) use imp::open;

#[cfg(test)]
mod tests {
    use super::*;

    fn timing(present_id: u32, actual_present_time: u64) -> PastTiming {
        PastTiming { present_id, actual_present_time }
    }

    fn take_all(c: &mut Converter, timings: &[PastTiming]) -> Vec<Feedback> {
        let mut out = Vec::new();
        c.timings(timings, &mut |f| out.push(f));
        out
    }

    /// The lab's zero is 2 s on the driver's clock; ids start at
    /// 0xFFFF_FFFE so that they wrap; frames 1 to 5:
    ///
    /// ```text
    /// id           frame  actual (ns)      D (ns)        refresh
    /// 0xFFFF_FFFE    1    2 016 666 666    16 666 666    16 666 666
    /// 0xFFFF_FFFF    2    2 050 000 000    50 000 000    (refresh 2 034 skipped: two refreshes later)
    /// 0x0000_0000    3    —                no timing: an estimate
    /// 0x0000_0001    4    2 083 333 332    83 333 332
    ///   the window moves to a 144 Hz monitor: refresh 6 944 444
    /// 0x0000_0002    5    2 090 277 776    90 277 776    6 944 444
    /// ```
    #[test]
    fn past_timings_time_the_frames_by_id_across_a_wrap_a_skipped_refresh_and_two_monitors() {
        let mut c = Converter::new(2_000_000_000, 0xFFFF_FFFE);
        let ids: Vec<u32> = (1..=5).map(|frame| c.presenting(frame)).collect();
        assert_eq!(ids, [0xFFFF_FFFE, 0xFFFF_FFFF, 0, 1, 2]);
        c.set_refresh(16_666_666);
        let first = take_all(&mut c, &[timing(0xFFFF_FFFE, 2_016_666_666), timing(0xFFFF_FFFF, 2_050_000_000)]);
        assert_eq!(
            first,
            [
                Feedback::displayed(1, 16_666_666).with_refresh(16_666_666),
                Feedback::displayed(2, 50_000_000).with_refresh(16_666_666),
            ]
        );
        assert_eq!(
            take_all(&mut c, &[timing(1, 2_083_333_332)]),
            [Feedback::displayed(4, 83_333_332).with_refresh(16_666_666)]
        );
        c.set_refresh(6_944_444);
        assert_eq!(
            take_all(&mut c, &[timing(2, 2_090_277_776)]),
            [Feedback::displayed(5, 90_277_776).with_refresh(6_944_444)]
        );
        assert_eq!(take_all(&mut c, &[timing(0, 2_066_666_666)]), [], "frame 3's id was passed: it stays an estimate");
    }

    #[test]
    fn a_timing_for_an_id_never_given_times_nothing() {
        let mut c = Converter::new(0, 7);
        c.presenting(1);
        assert_eq!(take_all(&mut c, &[timing(3, 1_000)]), []);
        assert_eq!(take_all(&mut c, &[timing(7, 1_000)]), [Feedback::displayed(1, 1_000)]);
    }
}
