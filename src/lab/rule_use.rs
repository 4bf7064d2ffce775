//! Rule use: how often the functions an arm's variants added or replaced
//! ran, per game, and what the verdict may say when they never ran (a rule
//! that never came into play is not a rule that changes nothing).

use serde::Serialize;

use super::ArmSums;
use super::report::short;
use crate::script::RulePart;

/// One function's use over the games of a condition.
#[derive(Clone, Debug, Serialize)]
pub struct PartUse {
    #[serde(flatten)]
    pub part: RulePart,
    pub calls_per_game: f64,
    /// Games in which it was called at least once, and their share.
    pub games_called: u64,
    pub share_of_games: f64,
}

/// An arm's rule use (the functions its variants added or replaced).
#[derive(Clone, Debug, Serialize)]
pub struct RuleUse {
    /// Games in which any of the functions was called: the rule came into
    /// play.
    pub games_in_play: u64,
    pub games: u64,
    pub parts: Vec<PartUse>,
}

impl RuleUse {
    /// `None` for an arm without variant functions (base, or a variant of
    /// YAML alone, whose use is not counted).
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

    /// The functions by name, for sentences: `action collect_taxes (replaced)`.
    fn names(&self) -> String {
        let one = |p: &PartUse| format!("{} `{}` ({})", p.part.kind.trim_end_matches('s'), p.part.name, if p.part.replaced { "replaced" } else { "added" });
        self.parts.iter().map(one).collect::<Vec<_>>().join(", ")
    }
}

/// Puts what the arms' rule use says in front of a pair's verdict. When an
/// arm's rule never came into play, the verdict says so instead of "no
/// difference": these games cannot tell what the rule does.
pub fn amend(verdict: &mut Vec<String>, arms: [(&str, Option<&RuleUse>); 2], identical: bool) {
    let mut first = Vec::new();
    let mut unexercised = false;
    for (name, u) in arms {
        let Some(u) = u else { continue };
        let arm = short(name);
        if u.games_in_play == 0 {
            unexercised = true;
            first.push(format!(
                "{arm}: the rule came into play in 0 of {} games with these bots (never called: {}): this run cannot tell what it does",
                u.games,
                u.names()
            ));
        } else if u.games_in_play < u.games {
            first.push(format!(
                "{arm}: the rule came into play in {} of {} games ({:.1}%); the differences below come from those games",
                u.games_in_play,
                u.games,
                u.games_in_play as f64 / u.games.max(1) as f64 * 100.0
            ));
        }
    }
    if unexercised && identical {
        verdict.retain(|l| !l.contains("no difference at all"));
        verdict.push("identical games on all seeds, as they must be when the rule never runs: this says nothing about the rule".into());
    }
    first.append(verdict);
    *verdict = first;
}
