//! Deciding with knowledge: the options of a question with what each one
//! means (the special card on a turn-order space; a target's owner,
//! armies, unrest, buildings, the extra cubes each side throws by the
//! cards in force and the chance of winning), and `odds` for a planned
//! attack. Everything is worked out on the deciding seat's view of the
//! game by the rules themselves (`play::preview`).

use super::{Repl, Viewer, views};
use crate::core::*;
use crate::play::preview::{self, Battle, Preview};

/// Sets a battle up again on another position (`None`: no battle there).
type Again<'a> = dyn Fn(&GameState) -> Option<Preview> + 'a;

impl Repl {
    /// The seat whose knowledge `odds` and the option details use: the
    /// viewer's, or in the god view the human seat to act (else the first
    /// human seat).
    pub(super) fn me(&self) -> Option<Seat> {
        match self.viewer {
            Viewer::Seat(s) => Some(s),
            Viewer::God => {
                let acting = match self.game.engine.actor(self.state()) {
                    Actor::Seat(s) => Some(s),
                    _ => None,
                };
                acting.filter(|&s| self.is_human(s)).or_else(|| Seat::all(self.config.seats.len()).find(|&s| self.is_human(s)))
            }
        }
    }

    /// The options of the pending question, numbered, each with what it
    /// means when the viewer may know it (the asking seat, or god view).
    pub(super) fn option_lines(&self, options: &[Choice]) -> Vec<String> {
        let e = &self.game.engine;
        let st = self.state();
        let asking = match e.actor(st) {
            Actor::Seat(s) => Some(s),
            _ => None,
        };
        let may_know = asking.map_or(self.eyes().is_none(), |a| may_read(self.eyes(), Some(a)));
        let known = self.viewed();
        // What answering each province would start, as the rules play it.
        let previews: Vec<Option<Preview>> = options
            .iter()
            .map(|o| match o {
                Choice::Province(_) if may_know => preview::answer(e, &known, *o, None).ok(),
                _ => None,
            })
            .collect();
        // "no battle" only tells something where another answer fights
        // (a move), not where no answer can (a card picked in the draft).
        let battles = previews.iter().any(|p| matches!(p, Some(Preview::Battle(_))));
        options
            .iter()
            .zip(previews)
            .enumerate()
            .map(|(i, (o, pre))| {
                let name = e.choice_name(*o);
                let more = if may_know { self.option_detail(&known, *o, pre, battles) } else { None };
                match more {
                    Some(m) => format!("{}) {name}: {m}", i + 1),
                    None => format!("{}) {name}", i + 1),
                }
            })
            .collect()
    }

    /// What one option means, if there is more to say than its name;
    /// `preview` is what answering a province starts, and `battles` whether
    /// any answer to the question starts a battle.
    fn option_detail(&self, known: &GameState, o: Choice, preview: Option<Preview>, battles: bool) -> Option<String> {
        let e = &self.game.engine;
        match o {
            Choice::Space(k) => {
                let c = known.special_row.get(k as usize).copied().flatten()?;
                let card = &e.rules.cards.specials[c as usize];
                Some(format!("{} ({})", card.name, card.text))
            }
            Choice::Province(p) => {
                let about = views::brief(e, known, p);
                let again = |st: &GameState| preview::answer(e, st, o, None).ok();
                Some(match preview {
                    Some(Preview::Battle(b)) => format!("{about}; {}", self.battle_text(known, &b, &again)),
                    Some(Preview::Quiet) if battles => format!("{about}; no battle"),
                    _ => about,
                })
            }
            Choice::Count(n) => match preview::answer(e, known, o, Some(n)).ok()? {
                Preview::Battle(b) => Some(self.battle_text(known, &b, &|st: &GameState| preview::answer(e, st, o, Some(n)).ok())),
                Preview::Quiet => None,
            },
            _ => None,
        }
    }

    /// A battle as the rules set it up, with the deciding seat's chances
    /// from the tower's contents and tray now. `again` sets the same
    /// battle up on another position (to tell which cards change it).
    fn battle_text(&self, known: &GameState, b: &Battle, again: &Again) -> String {
        let e = &self.game.engine;
        let n = self.notation();
        let mut s = format!("{} battle: {} throws {}", b.kind, n.seat_name(b.attacker), b.thrown.seats[b.attacker.index()]);
        if let (Some(m), Some(x)) = (b.moved, b.attacker_extra())
            && x > 0
        {
            s.push_str(&format!(" ({} +{x} from supply)", views::count(m, "army", "armies")));
        }
        match b.defender {
            Some(d) if d != b.attacker => {
                s.push_str(&format!(", {} {}", n.seat_name(d), b.thrown.seats[d.index()]));
                let x = b.defender_extra();
                if x > 0 {
                    s.push_str(&format!(" ({} +{x} from supply)", views::count(b.defending, "army", "armies")));
                }
            }
            _ => {}
        }
        if b.thrown.peasants > 0 {
            s.push_str(&format!(", {} peasant{}", b.thrown.peasants, if b.thrown.peasants == 1 { "" } else { "s" }));
        }
        let in_force = self.in_force(known, b, again);
        if !in_force.is_empty() {
            s.push_str(&format!(" [in force: {}]", in_force.join("; ")));
        }
        match preview::chances(e, known, b, self.odds_trials) {
            Ok(c) => {
                // The seat's own side: taking the province, or holding its
                // own (a revolt, whose chances are the seat's already, or an
                // attack the seat defends, asked how many extra cubes it
                // throws: the attacker's chances, turned).
                let own = b.defender == Some(b.attacker);
                let defending = !own && self.me().is_some_and(|m| m != b.attacker && b.defender == Some(m));
                let (word, win, lose) = if defending { ("hold", c.lose.p, c.win.p) } else { (if own { "hold" } else { "win" }, c.win.p, c.lose.p) };
                s.push_str(&format!("; {word} {:.0}%, tie {:.0}%, lose {:.0}%", 100.0 * win, 100.0 * c.tie.p, 100.0 * lose));
            }
            Err(err) => s.push_str(&format!("; no odds: {err}")),
        }
        s
    }

    /// The cards in force that change this battle: the event and the two
    /// sides' specials, each kept only if the battle set up without it
    /// (`again` on a copy with the card taken out) differs. A card whose
    /// effects do not touch the question (a taxes event on a move, the
    /// defender's special on one's own attack) is not listed.
    fn in_force(&self, known: &GameState, b: &Battle, again: &Again) -> Vec<String> {
        let e = &self.game.engine;
        let changes = |without: GameState| !matches!(again(&without), Some(Preview::Battle(x)) if x == *b);
        let mut v = Vec::new();
        if let Some(ev) = known.event {
            let mut without = known.clone();
            without.event = None;
            if changes(without) {
                let c = &e.rules.cards.events[ev as usize];
                v.push(format!("event #{} {}", c.id, c.name));
            }
        }
        for s in std::iter::once(b.attacker).chain(b.defender.filter(|&d| d != b.attacker)) {
            let (Some(c), Some(space)) = (known.special_of(s), known.players[s.index()].space) else { continue };
            let mut without = known.clone();
            without.special_row[space as usize] = None;
            if changes(without) {
                v.push(format!("{}'s special {}", self.notation().seat_name(s), e.rules.cards.specials[c as usize].name));
            }
        }
        v
    }

    /// `odds PROVINCE [N] [from SOURCE]`: the chances of an attack into
    /// PROVINCE with N armies (default: all that may go; more are refused
    /// with how many may), from SOURCE or from the province the seat's plan
    /// moves from next to it.
    pub(super) fn odds(&self, args: &[&str]) -> Result<String, String> {
        let usage = "usage: odds PROVINCE [N] [from SOURCE]";
        let n = self.notation();
        let (target, rest) = args.split_first().ok_or(usage)?;
        let to = n.province(target).map_err(|e| e.to_string())?;
        let (count, rest) = match rest.split_first() {
            Some((c, r)) if c.parse::<u32>().is_ok() => (Some(c.parse::<u32>().expect("a number")), r),
            _ => (None, rest),
        };
        let from = match rest {
            [] => None,
            ["from", s] => Some(n.province(s).map_err(|e| e.to_string())?),
            _ => return Err(usage.into()),
        };
        if count == Some(0) {
            return Err("odds: at least 1 army must go".into());
        }
        if matches!(self.state().phase, Phase::Setup | Phase::Draft | Phase::Preload | Phase::GameOver) {
            return Err("odds: no battles before the first round or after the game".into());
        }
        let me = self.me().ok_or("odds: whose attack? view a seat first (`view A`)")?;
        let e = &self.game.engine;
        let known = self.viewed();
        let m = &e.rules.map;
        let plan = self.drafts.get(me.index()).cloned().flatten().filter(|_| self.draft_is_current(me)).or_else(|| known.players[me.index()].plan.clone());
        // Sources: the one given, else the plan's provinces next to the
        // target, else every province of the seat next to it (most armies first).
        let mut sources: Vec<(ProvinceId, Vec<usize>)> = Vec::new();
        let all: Vec<usize> = (0..e.rules.cards.actions.len()).collect();
        if let Some(f) = from {
            let planned: Vec<usize> =
                plan.iter().flat_map(|p| p.slots.iter().enumerate()).filter(|(_, c)| **c == Some(Card::Province(f))).map(|(a, _)| a).collect();
            sources.push((f, planned.into_iter().chain(all.iter().copied()).collect()));
        } else {
            if let Some(p) = &plan {
                for (a, c) in p.slots.iter().enumerate() {
                    if let Some(Card::Province(q)) = c
                        && m.neighbours(*q).any(|x| x == to)
                    {
                        sources.push((*q, std::iter::once(a).chain(all.iter().copied()).collect()));
                    }
                }
            }
            let mut own: Vec<ProvinceId> = m.neighbours(to).filter(|&q| known.provinces[q.index()].owner == Some(me)).collect();
            own.sort_by_key(|&q| std::cmp::Reverse(known.provinces[q.index()].armies));
            sources.extend(own.into_iter().map(|q| (q, all.clone())));
        }
        let name = |p: ProvinceId| n.province_name(p);
        if sources.is_empty() {
            return Err(format!("odds: {} holds no province next to {}", n.seat_name(me), name(to)));
        }
        let mut why = Vec::new();
        for (src, actions) in sources {
            match preview::staged_move(e, &known, me, src, to, count, &actions) {
                Ok(Preview::Battle(b)) => {
                    let head = format!("{} into {} ({}) from {}", n.seat_name(me), name(to), views::brief(e, &known, to), name(src));
                    let note = if known.event.is_none() && known.phase == Phase::Planning {
                        "\n  (the event is drawn and the specials taken after the plans: none counted here)"
                    } else {
                        ""
                    };
                    let secret = if known.levels_known() {
                        ""
                    } else {
                        "\n  (the tower's cubes counted as a player can, by colour; their levels are hidden and drawn from the counts)"
                    };
                    let again = |st: &GameState| preview::staged_move(e, st, me, src, to, count, &actions).ok();
                    return Ok(format!("{head}:\n  {}{note}{secret}", self.battle_text(&known, &b, &again)));
                }
                Ok(Preview::Quiet) => return Ok(format!("{} into {}: no battle (a move)", name(src), name(to))),
                Err(err) => why.push(format!("from {}: {err}", name(src))),
            }
        }
        Err(format!("odds: {}", why.join("; ")))
    }
}
