//! The fallback every platform has: a frame's display time is when its
//! present call returned (`present-return`, an estimate: under Fifo the
//! call returns when the queue has room, refreshes before the picture
//! changes). It asks nothing and hears nothing, so it is no
//! [`DisplayTimes`](super::DisplayTimes) source: [`DisplayTimer`](super::DisplayTimer)
//! without a source is this.

/// Its name on the card and the overlay: the core's own id for the estimate.
pub(crate) const NAME: &str = "present-return";

#[cfg(test)]
mod tests {
    #[test]
    fn the_fallback_is_named_as_the_core_names_the_estimate() {
        assert_eq!(super::NAME, timestep_core::feedback::DisplayTimeSource::PresentReturn.id());
    }
}
