//! Rule use: how often the functions an arm's variants added or replaced
//! ran, and the values their overlays changed were read, per game, and
//! what the verdict may say when they never did (a rule that never came
//! into play is not a rule that changes nothing).

use serde::Serialize;

use super::ArmSums;
use super::report::short;
use crate::engine::RulePart;

/// One function's (or value's) use over the games of a condition: calls,
/// or reads for a value.
#[derive(Clone, Debug, Serialize)]
pub struct PartUse {
    #[serde(flatten)]
    pub part: RulePart,
    pub calls_per_game: f64,
    /// Games in which it was called at least once, and their share.
    pub games_called: u64,
    pub share_of_games: f64,
}

/// An arm's rule use (the functions its variants added or replaced, the
/// values they changed).
#[derive(Clone, Debug, Serialize)]
pub struct RuleUse {
    /// Games in which any of the functions was called: the rule came into
    /// play.
    pub games_in_play: u64,
    pub games: u64,
    pub parts: Vec<PartUse>,
}

impl RuleUse {
    /// `None` for an arm whose variants add, replace and change nothing
    /// (base).
    pub fn of(parts: &[RulePart], sums: &ArmSums, games: u64) -> Option<RuleUse> {
        if parts.is_empty() {
            return None;
        }
        let n = games.max(1) as f64;
        let parts = parts
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let (calls, called) = sums.rule_calls.get(i).copied().unwrap_or((0, 0));
                PartUse { part: p.clone(), calls_per_game: calls as f64 / n, games_called: called, share_of_games: called as f64 / n }
            })
            .collect();
        Some(RuleUse { games_in_play: sums.rule_games, games, parts })
    }

    /// The parts by name, for sentences: `action `collect_taxes` (replaced)`,
    /// `value `RULES.scoring.x` (changed)`.
    fn names<'a>(parts: impl Iterator<Item = &'a PartUse>) -> String {
        parts.map(|p| format!("{} `{}` ({})", p.part.kind.trim_end_matches('s'), p.part.name, how(&p.part))).collect::<Vec<_>>().join(", ")
    }

    /// What was never called or read, for sentences.
    fn unused(&self) -> String {
        let (values, functions): (Vec<&PartUse>, Vec<&PartUse>) = self.parts.iter().filter(|p| p.games_called == 0).partition(|p| is_value(&p.part));
        let mut out = Vec::new();
        if !functions.is_empty() {
            out.push(format!("never called: {}", Self::names(functions.into_iter())));
        }
        if !values.is_empty() {
            out.push(format!("never read: {}", Self::names(values.into_iter())));
        }
        out.join("; ")
    }

    /// The parts whose use the lab cannot see in full (the engine reads
    /// them itself) and that were not seen in every game.
    fn unseen(&self) -> Vec<&PartUse> {
        self.parts.iter().filter(|p| p.part.uncounted.is_some() && p.games_called < self.games).collect()
    }
}

fn is_value(p: &RulePart) -> bool {
    p.kind == "value"
}

fn how(p: &RulePart) -> &'static str {
    match (is_value(p), p.replaced) {
        (false, true) => "replaced",
        (true, true) => "changed",
        _ => "added",
    }
}

/// What one arm's rule use says in front of a pair's verdict; whether it
/// never came into play (as far as the lab can see: no part it cannot
/// count).
fn statements(arm: &str, u: &RuleUse, adapted: bool, out: &mut Vec<String>) -> bool {
    let unseen = u.unseen();
    let engine = || {
        let reasons: Vec<String> = unseen.iter().map(|p| format!("`{}` is {}", p.part.name, p.part.uncounted.as_deref().unwrap_or(""))).collect();
        reasons.join("; ")
    };
    let pct = |k: u64| k as f64 / u.games.max(1) as f64 * 100.0;
    let mut unexercised = false;
    if u.games_in_play == 0 && unseen.is_empty() {
        unexercised = true;
        out.push(format!("{arm}: the rule came into play in 0 of {} games with these bots ({}): this run cannot tell what it does", u.games, u.unused()));
    } else if u.games_in_play == 0 {
        out.push(format!(
            "{arm}: no part of the rule the lab counts came into play in {} games ({}), but {}: whether the rule came into play is not known",
            u.games,
            u.unused(),
            engine()
        ));
    } else if u.games_in_play < u.games {
        let least = if unseen.is_empty() { "" } else { "at least " };
        let whence = if adapted {
            "the differences below come from those games and from the players each arm was tuned to"
        } else {
            "the differences below come from those games"
        };
        out.push(format!("{arm}: the rule came into play in {least}{} of {} games ({:.1}%); {whence}", u.games_in_play, u.games, pct(u.games_in_play)));
    }
    if u.games_in_play > 0 {
        // Each changed value read in some games only: how often.
        for p in u.parts.iter().filter(|p| is_value(&p.part) && p.games_called < u.games) {
            let least = if p.part.uncounted.is_some() { "at least " } else { "" };
            out.push(format!(
                "{arm}: the {} value `{}` was read in {least}{} of {} games ({:.1}%)",
                how(&p.part),
                p.part.name,
                p.games_called,
                u.games,
                pct(p.games_called)
            ));
        }
    }
    unexercised
}

/// Puts what the arms' rule use says in front of a pair's verdict. When an
/// arm's rule never came into play, the verdict says so instead of "no
/// difference": these games cannot tell what the rule does.
/// `adapted`: each arm plays its own tuned players, so games in which the
/// rule never came into play may differ too.
pub fn amend(verdict: &mut Vec<String>, arms: [(&str, Option<&RuleUse>); 2], identical: bool, adapted: bool) {
    let mut first = Vec::new();
    let mut unexercised = false;
    for (name, u) in arms {
        if let Some(u) = u {
            unexercised |= statements(short(name), u, adapted, &mut first);
        }
    }
    if unexercised && identical {
        verdict.retain(|l| !l.contains("no difference at all"));
        verdict.push("identical games on all seeds, as they must be when the rule never runs: this says nothing about the rule".into());
    }
    first.append(verdict);
    *verdict = first;
}
