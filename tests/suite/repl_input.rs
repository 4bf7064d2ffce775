//! The REPL's input: what a keystroke means (option numbers, bare answers),
//! what-if edits checked when typed, Lua like a Lua REPL, and completion.

use crate::common::*;

/// Seed 7, seat A human: planning, then A's turn-order choice (spaces 4
/// and 5 left), a move target, a count, then a deploy question with `pass`.
#[test]
fn numbers_are_option_numbers_and_bare_answers_are_accepted() {
    let mut r = repl(&["human", "greedy", "greedy", "greedy"], 7);
    let out = run(&mut r, &["next", "next", "next", "plan auto greedy", "plan done", "end"]);
    assert!(out.contains("A to decide: choose a turn-order space\n  1) space 4") && out.contains("\n  2) space 5"), "{out}");
    // `4` is option 4, which does not exist: refused, not read as space 4.
    let err = r.exec("4").unwrap_err();
    assert!(err.contains("1) space 4, 2) space 5"), "{err}");
    assert!(r.exec("choose 4").is_err());
    // A bare answer, written as the option reads.
    let out = r.exec("space 4").unwrap();
    assert!(out.contains("A takes turn space 4"), "{out}");
    r.exec("undo").unwrap();
    // The option's number, alone or after `choose`.
    let out = r.exec("choose 2").unwrap();
    assert!(out.contains("A takes turn space 5"), "{out}");
    let out = r.exec("end").unwrap();
    assert!(out.contains("A to decide: move or attack into\n  1) Kii") && out.contains("\n  4) Tosa"), "{out}");
    // A province's name alone (any case), then an option number for a count.
    let out = r.exec("kii").unwrap();
    assert!(out.contains("A chooses Kii (move_target)") && out.contains("how many armies go?"), "{out}");
    let out = r.exec("2").unwrap();
    assert!(out.contains("A chooses 2 (move_count)"), "{out}");
    let out = r.exec("end").unwrap();
    assert!(out.contains("or pass\n") && out.contains("4) pass"), "{out}");
    // A province that is not an option is refused with the options listed.
    let err = r.exec("choose Kozuke").unwrap_err();
    assert!(err.contains("4) pass"), "{err}");
    let out = r.exec("pass").unwrap();
    assert!(out.contains("A chooses pass (deploy_move)"), "{out}");
    // With no question pending, a word that is no command stays an error.
    let mut q = repl(&["human", "greedy", "greedy", "greedy"], 3);
    assert!(q.exec("pass").unwrap_err().contains("unknown command `pass`"));
}

/// `force` is checked when typed (issue 13, item 4): `force B=9 D=0` used to
/// say `done` and fail at the next battle with a Lua traceback.
#[test]
fn force_is_checked_against_what_can_be_thrown() {
    let mut r = repl(&["human", "greedy", "greedy", "greedy"], 6);
    // Before the tower is loaded the next throw is the preload (7 a seat).
    let err = r.exec("force B=9 D=0").unwrap_err();
    assert!(err.contains("the tower's preload: at most 7"), "{err}");
    run(&mut r, &["next", "next", "next"]);
    // Inside now: B 1, C 1, D 1, peasants 1; B's largest army is 5 (Kozuke), and a
    // defender may throw 2 extra cubes (the castle event, the defence special).
    let before = r.state().clone();
    let err = r.exec("force B=10 D=0").unwrap_err();
    assert_eq!(
        err,
        "force: 10 of B's cubes cannot land in the next throw: at most 8 can (1 inside the tower and in the tray, 5 in its largest army (Kozuke), 2 extra from its supply)"
    );
    let err = r.exec("force A=1 C=3 D=3").unwrap_err();
    assert!(err.contains("A, C, D would all have to throw cubes, but a battle has two sides"), "{err}");
    assert!(r.exec("force peasants=500").unwrap_err().contains("500 peasants cannot land"));
    assert!(r.exec("force E=1").is_err(), "no seat E in a 4-player game");
    assert_eq!(r.state(), &before, "a refused force changes nothing");
    assert!(!r.exec("history").unwrap().contains("force"), "and is not recorded");
    assert_eq!(r.exec("force B=8 D=0").unwrap(), "done: force B=8 D=0");
    assert_eq!(r.state().forced_throws.len(), 1);
}

/// A force accepted when typed (it is under what any throw could land) may
/// still be impossible at the throw that comes: `force B=9 D=0` at seed 5
/// meets a throw (after D's choice) where only 2 of B's cubes can land. The command that
/// reaches it fails with a clear message, no Lua traceback, and leaves
/// everything as it was (issue 13, item 4).
#[test]
fn a_force_the_next_throw_cannot_honour_fails_cleanly_and_changes_nothing() {
    let mut r = repl(&["human", "greedy", "greedy", "greedy"], 5);
    run(&mut r, &["next", "force B=9 D=0", "seat A greedy"]);
    let before = (r.state().clone(), r.game().cursor(), r.game().len(), r.lines().len(), r.prompt());
    let err = r.exec("end").unwrap_err();
    assert!(err.starts_with("`force B=9` cannot be honoured by the throw of `"), "{err}");
    assert!(err.contains("9 cubes of seat 2 should land, but only 2 are thrown or inside the tower"), "{err}");
    assert!(err.contains("`undo` back past the `force` takes it back"), "{err}");
    assert!(!err.contains("traceback") && !err.contains(".lua:"), "no Lua traceback: {err}");
    assert_eq!((r.state().clone(), r.game().cursor(), r.game().len(), r.lines().len(), r.prompt()), before, "the failed `end` changed nothing");
    // Taking the force back lets the game go on.
    run(&mut r, &["undo", "seat A greedy", "end"]);
    assert_eq!(r.state().phase, shogun_lab::core::Phase::GameOver);
}

/// The board table stays aligned whatever the buildings column holds, and
/// counts agree with their nouns (issue 13, item 7).
#[test]
fn board_is_aligned_and_counts_are_grammatical() {
    let mut r = repl(&["human", "greedy", "greedy", "greedy"], 1);
    run(&mut r, &["next", "next", "next", "set Iyo owner=A buildings=castle,temple,theatre armies=12 unrest=1", "set A points=1 chests=1"]);
    let board = r.exec("board purple").unwrap();
    let lines: Vec<&str> = board.lines().skip(1).collect();
    // Every column ends (or, for the left-aligned ones, starts) at the same
    // place on every line: the header's.
    let head = lines[0];
    for col in ["owner", "armies", "unrest", "tax", "rice"] {
        let end = head.find(col).unwrap() + col.len();
        for l in &lines[1..] {
            assert!(l.len() >= end && l.as_bytes()[end - 1] != b' ' && l.as_bytes().get(end).is_none_or(|&c| c == b' '), "column {col}:\n{board}");
        }
    }
    let b = head.find("buildings").unwrap();
    assert!(lines.iter().all(|l| l.as_bytes()[b - 1] == b' ' && l.as_bytes()[b] != b' '), "{board}");
    assert!(board.contains("castle, temple, theatre (3 spaces)") && board.contains("- (1 space) "), "{board}");
    let a = r.exec("player A").unwrap();
    assert!(a.contains("1 war chest,") && a.contains("1 point,"), "{a}");
    assert!(r.exec("province Settsu").unwrap().contains("of 1 space\n"));
    assert!(r.exec("set Settsu buildings=castle,temple").unwrap_err().contains("only 1 building space"));
}

/// `lua` like a Lua REPL (issue 13, item 12): `print` to the REPL's output,
/// every return value, tables (the sealed rules data too) pretty-printed,
/// helpers by name; and still no way to change the game.
#[test]
fn lua_prints_returns_every_value_and_pretty_prints_tables() {
    let mut r = repl(&["human", "greedy", "greedy", "greedy"], 1);
    run(&mut r, &["next", "next", "next", "set Settsu buildings=castle"]);
    let before = r.state().clone();
    assert_eq!(r.exec("lua 1, 'two', nil, true").unwrap(), "1\ttwo\tnil\ttrue");
    assert_eq!(r.exec("lua print('hi', 3, {1, 2}) print('again') return 4").unwrap(), "hi\t3\t{ 1, 2 }\nagain\n4");
    assert_eq!(r.exec("lua for i = 1, 3 do print(i) end").unwrap(), "1\n2\n3");
    assert_eq!(r.exec("lua game.province(MAP.by_name.Settsu)").unwrap(), "1\t2\t0\t1\t0", "owner, armies, unrest, buildings, free spaces");
    // Sealed rules data show their contents (they used to print as `{}`).
    assert_eq!(
        r.exec("lua RULES.params").unwrap(),
        "{\n  armies_left_behind = 1,\n  ask_extra_cubes = 1,\n  neutral_peasants = 1,\n  unrest_per_collection = 1\n}"
    );
    assert_eq!(r.exec("lua RULES.seats[1]").unwrap(), "{ colour = \"blue\", name = \"A\" }");
    let settsu = r.exec("lua province('settsu')").unwrap();
    for part in ["name = \"Settsu\"", "owner = \"A\"", "armies = 2", "buildings = { \"castle\" }", "neighbours = { \"Kii\", \"Yamato\"", "tax = 7"] {
        assert!(settsu.contains(part), "{part}:\n{settsu}");
    }
    let a = r.exec("lua seat('A')").unwrap();
    assert!(a.contains("chests = 15") && a.contains("\"Settsu\"") && a.contains("colour = \"blue\""), "{a}");
    assert_eq!(r.exec("lua seat('blue').name, seat(2).name, province(24).name").unwrap(), "A\tB\tSettsu");
    assert!(r.exec("lua seat('Z')").unwrap_err().contains("no seat `Z`"));
    assert!(r.exec("lua province('Atlantis')").unwrap_err().contains("no province `Atlantis`"));
    // Depth and cycle limits stay.
    assert_eq!(r.exec("lua local t = {} t[1] = t return t").unwrap(), "{ <cycle> }");
    assert!(r.exec("lua local t = {} for i = 1, 50 do t = {t} end return t").unwrap().contains("{...}"));
    // And nothing changes the game: not the helpers, not host writes.
    assert!(r.exec("lua game.gain(1, 5)").unwrap_err().contains("not allowed here"));
    assert!(r.exec("lua x = 1").unwrap_err().contains("cannot set global"));
    assert!(r.exec("lua print = nil").unwrap_err().contains("cannot set global"));
    assert!(r.exec("lua RULES.params.neutral_peasants = 5").is_err());
    assert!(r.exec("lua seat('A').chests = 99").is_ok(), "a helper's table is a copy");
    assert_eq!(r.state(), &before);
    assert_eq!(r.exec("lua seat('A').chests").unwrap(), "15");
}

/// Completion follows the context (issue 13, item 13), and did-you-mean
/// counts a swap of two letters as one slip.
#[test]
fn completion_follows_the_command_and_the_question() {
    let mut r = repl(&["human", "greedy", "greedy", "greedy"], 7);
    assert_eq!(r.completions("st"), ["status", "step"]);
    assert_eq!(r.completions("province Sa"), ["Sagami", "Sanuki"]);
    assert_eq!(r.completions("board b"), ["brown"]);
    assert_eq!(r.completions("view "), ["A", "B", "C", "D", "god"]);
    assert_eq!(r.completions("seat B g"), ["greedy"]);
    assert_eq!(r.completions("force "), ["A=", "B=", "C=", "D=", "peasants="]);
    assert!(r.completions("perform A attack_a ").contains(&"Settsu".to_string()));
    run(&mut r, &["next", "next", "next"]);
    // Planning: actions, then only the planner's own provinces.
    assert!(r.completions("plan ").iter().any(|w| w == "taxes") && r.completions("plan ").iter().any(|w| w == "done"));
    assert_eq!(r.completions("plan taxes S"), ["Settsu"], "B's Shima and Shimotsuke are not A's");
    assert_eq!(r.completions("plan bid K"), ["Kaga", "Kii"]);
    run(&mut r, &["plan auto greedy", "plan done", "end"]);
    // A question: its answers, after `choose` and alone.
    assert_eq!(r.completions("choose "), ["space"]);
    assert_eq!(r.completions("choose space "), ["4", "5"]);
    assert_eq!(r.completions("space "), ["4", "5"]);
    // A space that does not exist is said to be missing, not taken (the
    // probe of 2026-11-27: a hand-edited save's `choose space 9`, which a
    // load replays through the engine, said "space 9 is not free").
    let err = r.exec("choose space 9").unwrap_err();
    assert!(err.contains("space 9") && !err.contains("not free"), "{err}");
    let mut st = r.state().clone();
    let seat = shogun_lab::core::Seat::new(0);
    let choose = |k| shogun_lab::core::Decision::Choose { seat, choice: shogun_lab::core::Choice::Space(k) };
    let err = r.engine().apply(&mut st, &choose(8)).unwrap_err().to_string();
    assert!(err.contains("there is no space 9 (the turn-order spaces are 1 to 5)"), "{err}");
    let err = r.engine().apply(&mut st, &choose(0)).unwrap_err().to_string();
    assert!(err.contains("space 1 is not free"), "{err}");
    run(&mut r, &["space 5", "end"]);
    assert_eq!(r.completions("choose "), ["Iyo", "Kii", "Sanuki", "Tosa"]);
    assert_eq!(r.completions("K"), ["Kii"], "a bare answer completes too");
    assert_eq!(r.completions("province K").len(), 5, "any province: Kaga, Kai, Kazusa, Kii, Kozuke");
    // Did you mean: a swap is one slip; ties are all named.
    assert!(r.exec("stpe").unwrap_err().contains("did you mean `step`?"));
    assert!(r.exec("province Stetsu").unwrap_err().contains("did you mean `Settsu`?"));
}

/// At a terminal: a second Tab lists the matches; Ctrl-C drops an
/// unfinished Lua chunk (issue 13, items 12 and 13).
#[test]
fn terminal_lists_matches_and_ctrl_c_drops_a_lua_chunk() {
    let (mut p, home) = terminal("input", &[]);
    p.send("province Ka\t\t").unwrap();
    p.flush().unwrap();
    p.exp_string("Kaga").unwrap();
    p.exp_string("Kai").unwrap();
    p.exp_string("Kazusa").unwrap();
    p.send("g\t").unwrap();
    p.send_line("").unwrap();
    p.exp_string("Kaga (brown region)").unwrap();
    p.send_line("lua for i = 1, 3 do").unwrap();
    p.exp_string("...> ").unwrap();
    p.send_control('c').unwrap();
    p.flush().unwrap();
    p.exp_string("(the unfinished chunk is dropped)").unwrap();
    p.send_line("lua print('after') return 40 + 2").unwrap();
    p.exp_string("after").unwrap();
    p.exp_string("42").unwrap();
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
    let _ = std::fs::remove_dir_all(&home);
}

/// The REPL at a pseudo-terminal, with its own history folder.
pub(crate) fn terminal(tag: &str, args: &[&str]) -> (rexpect::session::PtySession, std::path::PathBuf) {
    let home = std::env::temp_dir().join(format!("shogun-pty-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_shogun"));
    cmd.args(args).env("SHOGUN_DATA", root()).env("HOME", &home).env("XDG_DATA_HOME", home.join("data")).env("TERM", "xterm").env("NO_COLOR", "1");
    let mut p = rexpect::session::spawn_command(cmd, Some(20_000)).unwrap();
    p.exp_string("`help` lists the commands").unwrap();
    prompt(&mut p);
    (p, home)
}

/// Waits for the next prompt (the line editor drops keys typed before it
/// is ready); returns what came before it. The line editor redraws the
/// prompt with every key it echoes, so the prompt text alone may be the
/// echo of a line still being read: a new read starts by turning on
/// bracketed paste (`ESC [?2004h`), which no echo does.
pub(crate) fn prompt(p: &mut rexpect::session::PtySession) -> String {
    let before = p.exp_string("\x1b[?2004h").unwrap();
    before + &p.exp_string("] > ").unwrap()
}

/// What a second Tab lists after `typed` at a fresh prompt (the line is
/// then dropped with Ctrl-C; `status` marks the end of the listing).
fn tab_list(p: &mut rexpect::session::PtySession, typed: &str) -> String {
    p.send(&format!("{typed}\t\t")).unwrap();
    p.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.send_control('c').unwrap();
    let raw = p.exp_string("\x1b[?2004l").unwrap();
    prompt(p);
    // The listing: the lines under the typed line, before it is redrawn.
    let start = raw.find("\r\n").map(|i| i + 2).unwrap_or_else(|| panic!("no listing: {raw:?}"));
    let end = raw[start..].find("\x1b[?2026h").map(|i| start + i).unwrap_or(raw.len());
    raw[start..end].to_string()
}

/// Hot seat at a terminal (issue 13, item 11): when A's plan is locked in,
/// the keyboard passes to B: a pause until B presses Enter, then the screen
/// and the line history are cleared, and the view is B's.
#[test]
fn hot_seat_pauses_to_pass_the_keyboard_through_a_pty() {
    let (mut p, home) = terminal("hot-seat", &["play", "--seed", "3", "--seats", "human,human,greedy,greedy"]);
    p.send_line("end").unwrap();
    p.exp_string("A, B to plan").unwrap();
    prompt(&mut p);
    p.send_line("plan auto").unwrap();
    p.exp_string("A's plan (not locked in)").unwrap();
    prompt(&mut p);
    p.send_line("plan done").unwrap();
    p.exp_string("-- pass the keyboard to B (yellow): the view is B's from now on and shows nothing of A's secrets --").unwrap();
    p.exp_string("B presses Enter to go on").unwrap();
    p.send_line("").unwrap();
    // The screen is cleared, and B is told what to do.
    p.exp_string("\x1b[2J\x1b[H").unwrap();
    p.exp_string("B to plan").unwrap();
    prompt(&mut p);
    // The line history is empty: the up arrow brings back none of A's lines.
    p.send("\x1b[A").unwrap();
    p.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.send_line("").unwrap();
    let seen = prompt(&mut p);
    assert!(!seen.contains("plan done") && !seen.contains("plan auto"), "A's lines came back: {seen:?}");
    p.send_line("status").unwrap();
    p.exp_string("viewing as: B").unwrap();
    prompt(&mut p);
    p.send_line("player A").unwrap();
    p.exp_string("plan: made (secret)").unwrap();
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
    let _ = std::fs::remove_dir_all(&home);
}

/// `plan` completion at a terminal (issue 13, item 9): after an action,
/// only the planner's own provinces not placed yet; after `plan`, only the
/// actions still free.
#[test]
fn plan_tab_completion_offers_own_provinces_and_free_actions_through_a_pty() {
    let (mut p, home) = terminal("plan-tab", &["play", "--seed", "3"]);
    p.send_line("end").unwrap();
    p.exp_string("A to plan").unwrap();
    prompt(&mut p);
    let own = ["Awa-Shikoku", "Kaga", "Kii", "Noto", "Omi", "Settsu", "Tamba", "Yamato"];
    let listed = tab_list(&mut p, "plan taxes ");
    for name in own {
        assert!(listed.contains(name), "{name} missing: {listed:?}");
    }
    for other in ["Kozuke", "Etchu", "Mimasaka", "Kai"] {
        assert!(!listed.contains(other), "{other} is not A's: {listed:?}");
    }
    // Tab completes a unique start.
    p.send("plan taxes Ta\t").unwrap();
    p.send_line("").unwrap();
    p.exp_string("taxes Tamba").unwrap();
    p.exp_string("bids you may make").unwrap();
    prompt(&mut p);
    let listed = tab_list(&mut p, "plan rice ");
    assert!(listed.contains("Settsu") && !listed.contains("Tamba"), "Tamba is placed: {listed:?}");
    let listed = tab_list(&mut p, "plan ");
    assert!(listed.contains("rice") && listed.contains("deploy5") && listed.contains("done"), "{listed:?}");
    assert!(!listed.contains("taxes"), "taxes is planned: {listed:?}");
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
    let _ = std::fs::remove_dir_all(&home);
}

/// `board compact`: a few lines a region, plain text in script mode and
/// the owners' colours when asked for (a terminal) (issue 13, item 10).
#[test]
fn compact_board_by_region_plain_or_in_colour() {
    let mut r = repl(&["human", "greedy", "greedy", "greedy"], 3);
    run(&mut r, &["next", "set Omi owner=B armies=7 unrest=2 buildings=castle,temple"]);
    let plain = r.exec("board compact").unwrap();
    assert!(!plain.contains('\x1b'), "no escapes unless at a terminal: {plain}");
    let lines: Vec<&str> = plain.lines().collect();
    assert_eq!(lines[0], "A blue, B yellow, C red, D purple; · neutral, !n unrest, (out of play)");
    assert_eq!(lines[1], "buildings after +: Ca castle, Te temple, Th Noh theatre");
    assert!(lines.iter().all(|l| l.chars().count() <= 78), "{plain}");
    assert!(plain.contains("  Omi B7 !2 +CaTe") && plain.contains("  Izumo ·"), "{plain}");
    // Every province once, its region first on its block.
    let m = &r.engine().rules.map;
    for p in &m.provinces {
        assert_eq!(plain.matches(&format!("  {} ", p.name)).count(), 1, "{}: {plain}", p.name);
    }
    for region in &m.regions {
        assert_eq!(lines.iter().filter(|l| l.starts_with(region.as_str())).count(), 1, "{plain}");
    }
    let red = r.exec("board compact red").unwrap();
    assert!(red.contains("Omi B7") && !red.contains("Settsu"), "{red}");
    assert!(r.exec("board compact blue").unwrap_err().contains("no region `blue`"));
    r.colour = true;
    let coloured = r.exec("board compact red").unwrap();
    assert!(coloured.contains("\x1b[33mOmi B7 !2 +CaTe\x1b[0m"), "B is yellow: {coloured:?}");
    r.colour = false;
    assert_eq!(r.exec("board compact").unwrap(), plain);
    assert!(r.completions("board c").contains(&"compact".to_string()));
}

/// The fuzz run of 2026-11-26: `end` played to the game's end, then the
/// summary's replay of the game failed (a call over the time limit on a
/// loaded machine) and `end` answered with an error, the game changed. A
/// command that took effect says so; a summary it cannot make is said in
/// its output. Here the replay fails for certain: the game is moved to an
/// engine whose collect-taxes action fails, at the last winter, when no
/// action is left to play.
#[test]
fn a_summary_that_cannot_be_made_does_not_turn_a_command_that_took_effect_into_an_error() {
    let mut r = repl(&["greedy", "greedy", "greedy"], 7);
    // Years count from 0: the second (last) year's winter.
    for _ in 0..2 {
        r.exec("winter").unwrap();
    }
    assert!(r.state().phase == shogun_lab::core::Phase::Winter && r.state().year == 1, "{}", r.prompt());
    let (pack, map) = copy_data("failing-summary");
    let path = pack.join("actions.lua");
    let text = std::fs::read_to_string(&path).unwrap() + "\nshogun.replace('action', 'collect_taxes', function() error('taxes fail now') end)\n";
    std::fs::write(&path, text).unwrap();
    let config = r.config.clone();
    let mut game = r.into_game();
    assert!(game.entries().any(|(_, e)| game.entry_text(e).contains("taxes")), "the game collected taxes before");
    game.engine = engine_from(&pack, &map);
    let mut r = shogun_lab::repl::Repl::from_game(config, game);
    let out = r.exec("end").unwrap();
    assert_eq!(r.state().phase, shogun_lab::core::Phase::GameOver);
    assert!(out.contains("the summary could not be made") && out.contains("taxes fail now"), "{out}");
    assert!(r.exec("summary").unwrap_err().contains("taxes fail now"));
}

/// A new user's trial (2026-11-28): `perform` before the year's events were
/// turned up was accepted, and the game could then not go on ("no event
/// left to draw"); and `perform` said only `done:`. It is refused there
/// (nothing changes), and where it is accepted it says what the action did.
#[test]
fn perform_is_refused_before_the_events_and_tells_what_the_action_did() {
    let mut r = repl(&["human", "greedy", "greedy", "greedy"], 1);
    run(&mut r, &["next"]);
    assert_eq!(r.state().phase, shogun_lab::core::Phase::YearStart);
    let before = (r.state().clone(), r.game().len());
    let err = r.exec("perform A taxes Settsu").unwrap_err();
    assert!(err.contains("the year's events are not turned up yet"), "{err}");
    assert_eq!((r.state().clone(), r.game().len()), before, "a refused perform changes nothing");
    run(&mut r, &["next", "next"]);
    let out = r.exec("perform A taxes Settsu").unwrap();
    assert!(out.starts_with("done: perform A taxes Settsu\n"), "{out}");
    assert!(out.contains("A collects 7 war chests in Settsu") && out.contains("end of round"), "{out}");
    assert!(!out.contains("(what if)"), "the log's echo of the command is not repeated: {out}");
    // The staged action was the season's round: the game goes on to the next.
    r.exec("seat A greedy").unwrap();
    r.exec("end").unwrap();
    assert_eq!(r.state().phase, shogun_lab::core::Phase::GameOver);
    // Once the bids are revealed and paid it is refused, saying why.
    let mut r = repl(&["human", "greedy", "greedy", "greedy"], 1);
    run(&mut r, &["next", "next", "next", "plan auto", "plan done"]);
    assert!(matches!(r.state().phase, shogun_lab::core::Phase::ChooseSpace { .. }), "{}", r.prompt());
    let err = r.exec("perform A taxes Settsu").unwrap_err();
    assert!(err.contains("the bids are revealed and paid"), "{err}");
    // In the middle of a round's actions it is refused, saying why.
    let mut r = repl(&["greedy", "greedy", "greedy", "greedy"], 1);
    while !matches!(r.state().phase, shogun_lab::core::Phase::Actions { .. }) {
        r.exec("step").unwrap();
    }
    let err = r.exec("perform A taxes Settsu").unwrap_err();
    assert!(err.contains("this round's actions have begun"), "{err}");
}
