//! The lab's strategies: the core's [`REGISTRY`] (the ten, in key order) and
//! any a program adds at run time ([`register`]: a test's eleventh, a game's
//! own loop run in the lab). Keys, lanes, the tour, the overlay's help,
//! `--strategy`'s values and `--help` all read [`all`]; nothing else in the
//! lab lists the strategies.
//!
//! ```
//! use timestep_lab::registry;
//! assert_eq!(registry::all()[3].name(), "catch-up", "key 4");
//! assert_eq!(registry::parse(" Catch-Up ").map(|id| id.name()), Ok("catch-up"));
//! ```

use std::sync::{PoisonError, RwLock};

use crate::strategy::{REGISTRY, StrategyId, UnknownStrategy};

/// The strategies added at run time, after the registry's, in the order added.
static ADDED: RwLock<Vec<StrategyId>> = RwLock::new(Vec::new());

/// Adds a strategy after the registry's and those added before: it gets the
/// next key, a lane, a `--strategy` value and a line in the help.
///
/// # Errors
/// A strategy of the same name is already there (names are what
/// `--strategy` and reports go by).
pub fn register(id: StrategyId) -> Result<(), String> {
    let mut added = ADDED.write().unwrap_or_else(PoisonError::into_inner);
    if REGISTRY.iter().chain(added.iter()).any(|known| known.name().eq_ignore_ascii_case(id.name())) {
        return Err(format!("a strategy named {} is already registered", id.name()));
    }
    added.push(id);
    Ok(())
}

/// Every strategy of the lab, in key order: the registry's, then those added.
pub fn all() -> Vec<StrategyId> {
    let added = ADDED.read().unwrap_or_else(PoisonError::into_inner);
    REGISTRY.iter().chain(added.iter()).copied().collect()
}

/// How many strategies the lab has ("the ten" while nothing is added).
pub fn count() -> usize {
    REGISTRY.len() + ADDED.read().unwrap_or_else(PoisonError::into_inner).len()
}

/// The strategy of [`all`] named `name` (case and surrounding blanks do not matter).
///
/// # Errors
/// An unknown name; the message lists every known one.
pub fn parse(name: &str) -> Result<StrategyId, UnknownStrategy> {
    StrategyId::parse_among(&all(), name)
}

/// How many strategies, in words for the help ("ten", "eleven"), or digits past twenty.
pub fn count_in_words() -> String {
    const WORDS: [&str; 21] = [
        "no",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
    ];
    let n = count();
    WORDS.get(n).map_or_else(|| n.to_string(), |w| (*w).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lab_starts_with_the_registry_in_key_order() {
        assert_eq!(all()[..REGISTRY.len()], *REGISTRY);
        assert_eq!(&all()[..10], &StrategyId::ALL, "the ten built in come first");
    }

    #[test]
    fn a_name_already_known_is_refused_in_any_case() {
        assert!(register(StrategyId::CatchUp).is_err());
        let msg = register(StrategyId::Fuzzy).expect_err("fuzzy is in the registry");
        assert_eq!(msg, "a strategy named fuzzy is already registered");
    }
}
