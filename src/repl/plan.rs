//! The plan assistant: while a seat edits its plan, a running ledger of
//! war chests in the order of the action row (what each action costs or
//! brings, what is left), the actions the rules would skip and why, the
//! bids the seat may make, what is still unplaced, and completion that
//! offers the seat's own free provinces and the plan's free actions. The
//! numbers come from the rules' own handlers run on a copy of the seat's
//! view (`play::preview::ledger`), never from constants here.

use std::fmt::Write as _;

use super::Repl;
use crate::core::*;
use crate::play::preview;

impl Repl {
    /// The ledger and warnings for `seat`'s draft.
    pub(super) fn plan_report(&self, seat: Seat, draft: &Plan) -> String {
        let e = &self.game.engine;
        let known = self.state().view(Some(seat));
        let mut plan = draft.clone();
        e.fill_skips(&known, seat, &mut plan);
        let mut out = String::new();
        let chests = known.players[seat.index()].chests;
        match preview::ledger(e, &known, seat, &plan) {
            Ok((at_reveal, steps)) => {
                let bid = chests - at_reveal;
                let _ = write!(out, "  war chests: {chests}");
                if bid != 0 {
                    let _ = write!(out, ", {at_reveal} after paying the bid of {bid}");
                }
                out.push_str(" (event and specials not counted: they come after the plans)");
                let mut face_down = false;
                for st in &steps {
                    if !st.face_up && !face_down {
                        out.push_str("\n  face down, order unknown:");
                        face_down = true;
                    }
                    let card = &e.rules.cards.actions[st.action];
                    let delta = st.chests_after - st.chests_before;
                    let money = if delta == 0 { format!("{:>3}", "") } else { format!("{delta:>+3}") };
                    let what = if st.skipped {
                        format!("! skipped: {}", st.lines.join("; ").trim_end_matches(" (skipped)"))
                    } else if let Some((prompt, n)) = &st.asks {
                        format!("asks: {prompt} ({n} choice{})", if *n == 1 { "" } else { "s" })
                    } else if st.battle {
                        "a battle decides it (its outcome is not guessed here)".to_string()
                    } else {
                        st.lines.join("; ")
                    };
                    let _ = write!(out, "\n  {:<20} {:<13} {money} -> {:>3}  {what}", card.name, self.notation().province_name(st.province), st.chests_after);
                }
            }
            Err(err) => {
                let _ = write!(out, "  (no ledger: {err})");
            }
        }
        let _ = write!(out, "\n  bids you may make: {} or a province card", self.chest_bids(&known, seat).join(", "));
        // What is still to place.
        let left: Vec<String> = e.unplaced(&known, seat, draft).into_iter().filter(|c| matches!(c, Card::Province(_))).map(|c| e.card_name(c)).collect();
        let empty = draft.slots.iter().filter(|c| c.is_none()).count();
        if !draft.slots.iter().any(|c| matches!(c, Some(Card::Province(_)))) {
            out.push_str("\n  ! no province card on any action: every action would be skipped");
        }
        if !left.is_empty() {
            let _ = write!(out, "\n  ! not placed yet: {} ({empty} action space{} empty)", left.join(", "), if empty == 1 { "" } else { "s" });
        }
        if draft.bid.is_none() {
            out.push_str("\n  ! the bid space is empty");
        }
        out
    }

    /// The war-chest cards `seat` may bid (at most the chests it holds).
    pub(super) fn chest_bids(&self, known: &GameState, seat: Seat) -> Vec<String> {
        let e = &self.game.engine;
        let cards = &e.rules.rules.components.chest_cards;
        cards.iter().filter(|&&v| u8::try_from(v).is_ok_and(|v| e.can_bid(known, seat, Card::Chest(v)))).map(|v| v.to_string()).collect()
    }

    /// Whether the draft puts no province card on any action (`plan done`
    /// then asks for `plan done anyway`).
    pub(super) fn plan_is_empty(draft: &Plan) -> bool {
        !draft.slots.iter().any(|c| matches!(c, Some(Card::Province(_))))
    }

    /// Completion for `plan`: after `plan`, the plan's free actions and
    /// the subcommands; after an action, the seat's provinces not yet
    /// placed (and `-`); after `bid`, the bids it may make. `None` when
    /// the line is not a `plan` command or nobody plans.
    pub fn plan_completions(&self, before: &str) -> Option<Vec<String>> {
        let rest = before.strip_prefix("plan ")?;
        let seat = self.planner().ok()?;
        let e = &self.game.engine;
        let n = e.rules.cards.actions.len();
        let draft = self.drafts[seat.index()].clone().filter(|_| self.draft_is_current(seat)).unwrap_or(Plan { slots: vec![None; n], bid: None });
        let known = self.state().view(Some(seat));
        let words: Vec<&str> = rest.split_whitespace().collect();
        let typing = !rest.is_empty() && !rest.ends_with(char::is_whitespace);
        let done = words.len() - usize::from(typing);
        let free_provinces = || -> Vec<String> {
            e.hand(&known, seat)
                .into_iter()
                .filter(|c| matches!(c, Card::Province(_)) && draft.bid != Some(*c) && !draft.slots.contains(&Some(*c)))
                .map(|c| e.card_name(c))
                .collect()
        };
        match done {
            0 => {
                let mut v: Vec<String> = (0..n).filter(|&a| draft.slots[a].is_none()).map(|a| e.rules.cards.actions[a].id.clone()).collect();
                v.extend(["show", "auto", "clear", "done", "bid"].map(String::from));
                Some(v)
            }
            1 if words[0] == "bid" => {
                let mut v = self.chest_bids(&known, seat);
                v.extend(free_provinces());
                Some(v)
            }
            1 if e.rules.cards.actions.iter().any(|a| a.id == words[0]) => {
                let mut v = free_provinces();
                v.push("-".into());
                Some(v)
            }
            _ => Some(Vec::new()),
        }
    }

    /// Completions that depend on the game now, as (line prefix, words)
    /// pairs for the line editor: `plan `, `plan ACTION ` and `plan bid `.
    pub fn context_words(&self) -> Vec<(String, Vec<String>)> {
        let mut prefixes = vec!["plan ".to_string(), "plan bid ".to_string()];
        prefixes.extend(self.game.engine.rules.cards.actions.iter().map(|a| format!("plan {} ", a.id)));
        prefixes.into_iter().filter_map(|p| self.plan_completions(&p).map(|w| (p, w))).collect()
    }
}
