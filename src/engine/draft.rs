//! The draft of starting provinces (docs/rules.md, "Setting up"): shuffle the
//! province cards face down and turn up `draft.open_cards` (two); in turn,
//! starting with seat 1, each player takes an open card or the top hidden
//! card and places one of his remaining army groups (his choice) there. A
//! taken open card is replaced from the deck; a player facing the same open
//! cards as at his previous pick may put them back into the deck (shuffled)
//! and turn up two new ones (docs/rules.md, "Readings").

use super::{Engine, EngineError, illegal};
use crate::core::*;

impl Engine {
    pub(super) fn start_draft(&self, st: &mut GameState, ev: &mut Vec<Event>) {
        let r = &self.rules.rules;
        let n = st.seats() as u8;
        let mut deck: Vec<ProvinceId> = (0..st.provinces.len()).filter(|&p| st.in_play[p]).map(ProvinceId::new).collect();
        st.streams.next(Purpose::Draft, Stage::setup()).shuffle(&mut deck);
        let k = (r.draft.open_cards as usize).min(deck.len());
        let open: Vec<ProvinceId> = deck.drain(..k).collect();
        let used = r.army_groups_used.get(&n).copied().unwrap_or(r.army_groups.len());
        let groups: Vec<u16> = r.army_groups.iter().take(used).map(|&g| g as u16).collect();
        self.note(ev, || {
            format!(
                "draft: {} province cards; each player places army groups {}",
                deck.len() + open.len(),
                groups.iter().map(|g| g.to_string()).collect::<Vec<_>>().join(", ")
            )
        });
        st.draft = Some(Draft { deck, open, groups: vec![groups; n as usize], turn: Seat::new(0), card: None, faced: vec![None; n as usize] });
        if let Some(d) = &st.draft {
            let names: Vec<&str> = d.open.iter().map(|&p| self.rules.province_name(p)).collect();
            self.note(ev, || format!("open cards: {}", names.join(", ")));
        }
    }

    fn sorted(v: &[ProvinceId]) -> Vec<ProvinceId> {
        let mut v = v.to_vec();
        v.sort_unstable();
        v
    }

    pub(super) fn draft_legal(&self, st: &GameState) -> Legal {
        let Some(d) = &st.draft else { return Legal::None };
        let seat = d.turn;
        if d.card.is_some() {
            let mut sizes = d.groups[seat.index()].clone();
            sizes.sort_unstable_by(|a, b| b.cmp(a));
            sizes.dedup();
            return Legal::Choose {
                seat,
                kind: super::DRAFT_GROUP.into(),
                prompt: "which army group goes there?".into(),
                options: sizes.into_iter().map(|g| Choice::Count(u32::from(g))).collect(),
            };
        }
        let mut options: Vec<Choice> = d.open.iter().map(|&p| Choice::Province(p)).collect();
        if !d.deck.is_empty() {
            options.push(Choice::Deck);
        }
        let k = self.rules.rules.draft.open_cards as usize;
        if d.deck.len() >= k && d.open.len() == k && d.faced[seat.index()].as_deref() == Some(&Self::sorted(&d.open)[..]) {
            options.push(Choice::Redraw);
        }
        Legal::Choose { seat, kind: super::DRAFT_CARD.into(), prompt: "take an open card or the top hidden card".into(), options }
    }

    pub(super) fn draft_choose(&self, st: &mut GameState, ev: &mut Vec<Event>, seat: Seat, choice: Choice) -> Result<(), EngineError> {
        let Legal::Choose { seat: who, options, .. } = self.draft_legal(st) else {
            return illegal("the draft is over");
        };
        if who != seat {
            return illegal(format!("{} picks now, not {}", self.rules.seat_name(who), self.rules.seat_name(seat)));
        }
        if !options.contains(&choice) {
            return illegal(format!("{} is not one of the options", self.choice_name(choice)));
        }
        let name = self.rules.seat_name(seat).to_string();
        let d = st.draft.as_mut().expect("draft");
        match choice {
            Choice::Redraw => {
                // Both books: the two go back into the face-down deck
                // (Hungarian: put back into the pack; Romanian: turned face
                // down) and two new ones are turned up from it: first the
                // new ones, then the old ones shuffled back in.
                let old: Vec<ProvinceId> = std::mem::take(&mut d.open);
                d.open = d.deck.drain(..self.rules.rules.draft.open_cards as usize).collect();
                d.deck.extend(old);
                st.streams.next(Purpose::Draft, Stage::setup()).shuffle(&mut d.deck);
                d.faced[seat.index()] = None;
                let names: Vec<&str> = d.open.iter().map(|&p| self.rules.province_name(p)).collect();
                let line = format!("{name} puts both open cards back into the deck (shuffled); new open cards: {}", names.join(", "));
                self.note(ev, || line);
            }
            Choice::Province(p) => {
                d.faced[seat.index()] = Some(Self::sorted(&d.open));
                d.open.retain(|&x| x != p);
                if !d.deck.is_empty() {
                    let next = d.deck.remove(0);
                    d.open.push(next);
                }
                d.card = Some(p);
                let names: Vec<&str> = d.open.iter().map(|&x| self.rules.province_name(x)).collect();
                let line = format!("{name} takes the open card {}; open now: {}", self.rules.province_name(p), names.join(", "));
                self.note(ev, || line);
            }
            Choice::Deck => {
                d.faced[seat.index()] = Some(Self::sorted(&d.open));
                let p = d.deck.remove(0);
                d.card = Some(p);
                let line = format!("{name} takes the top hidden card: {}", self.rules.province_name(p));
                self.note(ev, || line);
            }
            Choice::Count(g) => {
                let g = g as u16;
                if st.players[seat.index()].supply < g {
                    return Err(EngineError::Setup(format!("seat {} has too few cubes for its army groups", seat)));
                }
                let d = st.draft.as_mut().expect("draft");
                let p = d.card.take().expect("a card was taken").index();
                let groups = &mut d.groups[seat.index()];
                let i = groups.iter().position(|&x| x == g).expect("checked option");
                groups.remove(i);
                self.place_group(st, ev, seat.index(), p, g)?;
                self.next_picker(st, ev);
            }
            _ => return illegal("not a draft choice"),
        }
        Ok(())
    }

    fn place_group(&self, st: &mut GameState, ev: &mut Vec<Event>, seat: usize, p: usize, g: u16) -> Result<(), EngineError> {
        if st.players[seat].supply < g {
            return Err(EngineError::Setup(format!("seat {} has too few cubes for its army groups", seat + 1)));
        }
        st.players[seat].supply -= g;
        st.provinces[p] = ProvinceState { owner: Some(Seat::new(seat)), armies: g, unrest: 0, buildings: 0 };
        self.note(ev, || format!("{} places {g} in {}", self.rules.seat_name(Seat::new(seat)), self.rules.province_name(ProvinceId::new(p))));
        Ok(())
    }

    /// Passes the pick on; ends the draft when every group is placed.
    fn next_picker(&self, st: &mut GameState, ev: &mut Vec<Event>) {
        let d = st.draft.as_mut().expect("draft");
        let n = d.groups.len();
        for k in 1..=n {
            let s = (d.turn.index() + k) % n;
            if !d.groups[s].is_empty() {
                d.turn = Seat::new(s);
                return;
            }
        }
        st.draft = None;
        st.phase = Phase::Preload;
        for s in 0..st.seats() {
            let names: Vec<String> =
                st.provinces_of(Seat::new(s)).map(|p| format!("{} {}", self.rules.province_name(p), st.provinces[p.index()].armies)).collect();
            self.note(ev, || {
                format!(
                    "{} ({}) starts with {} war chests in {}",
                    self.rules.seat_name(Seat::new(s)),
                    self.rules.rules.seats[s].colour,
                    st.players[s].chests,
                    names.join(", ")
                )
            });
        }
    }

    /// Makes forced draft moves (a single group size left); true if it did.
    pub(super) fn draft_auto(&self, st: &mut GameState, ev: &mut Vec<Event>) -> Result<bool, EngineError> {
        let Some(d) = &st.draft else { return Ok(false) };
        if let (Some(_), Legal::Choose { seat, options, .. }) = (d.card, self.draft_legal(st))
            && options.len() == 1
        {
            self.draft_choose(st, ev, seat, options[0])?;
            return Ok(true);
        }
        Ok(false)
    }
}
