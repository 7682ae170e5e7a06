/* keys.h: every action of the browser and the replay, declared once with its
 * keys and help text; the key map, the help screen and `kbtui keys` (which
 * the man page is checked against) all read the one table. */
#ifndef KB_KEYS_H
#define KB_KEYS_H

#include <curses.h>
#include <stdio.h>
#include <wchar.h>

struct tlines;

enum { V_BROWSE = 1, V_REPLAY = 2, V_COMPARE = 4, V_ALL = 7 };

/* A key value that stands for any digit (counts typed before an action). */
#define KEYS_DIGIT (-2)

/* name, key, second key (0: none), key label (at most 14 columns), views,
 * help (one sentence, no final period). */
#define TUI_ACTIONS(X) \
	X(DOWN,         'j',        KEY_DOWN,  "j, Down",     V_ALL,    "Next run or event; in a focused pane, scroll down (the annotation pane: the next quote; the timeline pane: the next version)") \
	X(UP,           'k',        KEY_UP,    "k, Up",       V_ALL,    "Previous run or event; in a focused pane, scroll up (the annotation pane: the previous quote; the timeline pane: the previous version)") \
	X(PAGE_DOWN,    KEY_NPAGE,  ' ',       "PgDn, Space", V_ALL,    "One screen down") \
	X(PAGE_UP,      KEY_PPAGE,  'b',       "PgUp, b",     V_ALL,    "One screen up") \
	X(FIRST,        'g',        KEY_HOME,  "g, Home",     V_ALL,    "First run or event; in a focused pane, its top") \
	X(LAST,         'G',        KEY_END,   "G, End",      V_ALL,    "Last run or event (with a count N, event N; a big file still being read: its end at once); in a focused pane, its end") \
	X(LEFT,         KEY_LEFT,   0,         "Left",        V_BROWSE | V_REPLAY, "In the grid, the problem to the left; in the focused artifact pane, scroll long lines left") \
	X(RIGHT,        KEY_RIGHT,  0,         "Right",       V_BROWSE | V_REPLAY, "In the grid, the problem to the right; in the focused artifact pane, scroll long lines right") \
	X(OPEN,         '\n',       KEY_ENTER, "Enter",       V_BROWSE, "Browser: replay the selected run (a sweep's running cell: its live replay, as kbtui watch)") \
	X(GRID,         'v',        0,         "v",           V_BROWSE, "Browser: switch between the run list and the leaderboard grid (models x problems)") \
	X(SORT,         's',        0,         "s",           V_BROWSE, "Sort by problem, model or peak_fraction, in turn (by peak_fraction the grid ranks its rows by mean peak_fraction)") \
	X(FILTER,       '/',        0,         "/",           V_BROWSE, "Browser: show only runs whose run id, model, problem or verdict contain a text (empty: all)") \
	X(XSEARCH,      '?',        0,         "?",           V_BROWSE, "Browser: search every run's events for a PCRE2 regular expression; hits per run, Enter replays a run at its first hit") \
	X(COMPARE,      'c',        0,         "c",           V_BROWSE, "Browser: mark the selected run for comparison; c on a second run compares the two side by side") \
	X(BOARD,        'd',        0,         "d",           V_BROWSE, "Browser: the next board (leaderboard file) in turn, then all of them: the list and grid show that board's runs, the grid its deck, the header its GPU and roofline table") \
	X(COUNT,        KEYS_DIGIT, 0,         "0-9",         V_REPLAY, "A count for the next key: 42G goes to event 42, 50% to the middle of the run") \
	X(PERCENT,      '%',        'p',       "%, p",        V_REPLAY, "Go to N% of the run (N typed before); alone, ask for N") \
	X(SEARCH,       '/',        0,         "/",           V_REPLAY, "Replay: search forward for a PCRE2 regular expression in event text, tool names, arguments, paths and diffs, matches highlighted (all lower case: case ignored; empty: the last search)") \
	X(SEARCH_BACK,  '?',        0,         "?",           V_REPLAY, "Search backward") \
	X(NEXT_MATCH,   'n',        0,         "n",           V_REPLAY, "Next match, in the direction of the search") \
	X(PREV_MATCH,   'N',        0,         "N",           V_REPLAY, "Previous match") \
	X(NEXT_TOOL,    't',        0,         "t",           V_REPLAY, "Next tool call") \
	X(PREV_TOOL,    'T',        0,         "T",           V_REPLAY, "Previous tool call") \
	X(NEXT_ERROR,   'e',        0,         "e",           V_REPLAY, "Next error: a failed tool result or an error event") \
	X(PREV_ERROR,   'E',        0,         "E",           V_REPLAY, "Previous error") \
	X(NEXT_COMPILE, 'c',        0,         "c",           V_REPLAY, "Next tool result with a compiler or Python error") \
	X(PREV_COMPILE, 'C',        0,         "C",           V_REPLAY, "Previous tool result with a compiler or Python error") \
	X(NEXT_BENCH,   'm',        0,         "m",           V_REPLAY, "Next benchmark measurement (a peak_fraction or timing line)") \
	X(PREV_BENCH,   'M',        0,         "M",           V_REPLAY, "Previous benchmark measurement") \
	X(NEXT_FLAG,    'f',        0,         "f",           V_REPLAY, "Next flagged event: one an auto-flag rule marks (the ! column; kbtui flags)") \
	X(PREV_FLAG,    'F',        0,         "F",           V_REPLAY, "Previous flagged event") \
	X(PLAY,         'P',        0,         "P",           V_REPLAY, "Play or pause: step through the events at their recorded pace, or at a fixed rate without timestamps") \
	X(FASTER,       ']',        '+',       "], +",        V_REPLAY, "Play faster") \
	X(SLOWER,       '[',        '-',       "[, -",        V_REPLAY, "Play slower") \
	X(GOTO_ROW,     '\n',       KEY_ENTER, "Enter",       V_REPLAY, "Replay, in the compiler or timing pane: go to the event of the top row; in the annotation pane, the event that wrote the selected quote's lines; in the timeline pane, the selected version's event") \
	X(HIDE_NOISE,   's',        0,         "s",           V_REPLAY, "Replay: hide usage, system and read-only events (reads, greps, listings: tool calls that change nothing) from the event list, or show them again; moves and searches skip hidden events") \
	X(FOCUS,        '\t',       0,         "Tab",         V_REPLAY, "Move the focus from the event list to each pane shown beside it in turn, then back to the list") \
	X(LAYOUT,       '=',        0,         "=",           V_REPLAY, "Replay: switch between the four-pane layout (reasoning, tool call and result, compiler output and timing beside the list, each following the selected event; the default on a terminal of 160x45 or more) and the one-pane layout (v switches the pane)") \
	X(PANE,         'v',        0,         "v",           V_REPLAY, "Replay: the next pane beside the event list: event detail, compiler output, timing, artifact, lineage, GPU, shapes (the site's per-shape detail against the roofline, else the run's own result.json shapes, naming which and the table), claims (the agent's claims beside what was measured), reasoning, annotation (verdict, summary, implication, quotes), timeline (one row per solution version); in the four-pane layout, first back to one pane") \
	X(PANE_BACK,    'V',        0,         "V",           V_REPLAY, "Previous pane beside the list") \
	X(ITEM_NEXT,    'o',        0,         "o",           V_REPLAY, "In the artifact or lineage pane: the next file") \
	X(ITEM_PREV,    'O',        0,         "O",           V_REPLAY, "In the artifact or lineage pane: the previous file") \
	X(LINEAGE_DIFF, 'D',        0,         "D",           V_REPLAY, "Lineage pane: mark the selected event; at other events the pane shows the diff of the file from the marked version (D again clears the mark)") \
	X(LINEAGE_FINAL, 'W',       0,         "W",           V_REPLAY, "Lineage pane: the run directory's final copy of the file (solution.py), or back to the version the transcript's changes make; for where the pane says the file cannot be followed") \
	X(BEST,         'w',        0,         "w",           V_REPLAY, "Go to the event with the run's best peak_fraction") \
	X(COPY_LINK,    'y',        0,         "y",           V_REPLAY, "Copy the selected event's reference, RUN@N (what kbtui RUN@N opens), to the clipboard by OSC 52, and show it in the status line") \
	X(NEXT_SUGGESTED, 'S',      0,         "S",           V_REPLAY, "Next event with a judge's suggestion (kbtui judge), going round to the first after the last") \
	X(SUGGEST_ACCEPT, 'J',      0,         "J",           V_REPLAY, "Accept the judge's suggestion at the selected event (kbtui judge's suggested.json, listed in the annotation pane): its status becomes accepted and, for a dataset's run, its quote is added to the annotation; never a verdict") \
	X(SUGGEST_REJECT, 'r',      0,         "r",           V_REPLAY, "Reject the judge's suggestion at the selected event: its status in suggested.json becomes rejected") \
	X(QUOTE,        'Q',        0,         "Q",           V_REPLAY, "In the artifact pane: mark the cursor line for a quote (j/k extend the range); Q again asks for a label and adds the lines verbatim to the run's annotation (Esc cancels)") \
	X(ZOOM,         'z',        0,         "z",           V_REPLAY, "Zoom the focused pane to the whole screen, or back") \
	X(WIDER,        '>',        0,         ">",           V_REPLAY, "Widen the event list") \
	X(NARROWER,     '<',        0,         "<",           V_REPLAY, "Narrow the event list") \
	X(NEXT_MILESTONE, 'm',      0,         "m",           V_COMPARE, "Compare: both runs to the next milestone (first compile, first PASS, best peak_fraction, end)") \
	X(PREV_MILESTONE, 'M',      0,         "M",           V_COMPARE, "Compare: both runs to the previous milestone") \
	X(SIDE,         '\t',       0,         "Tab",         V_COMPARE, "Compare: select the other run") \
	X(OPEN_SIDE,    '\n',       KEY_ENTER, "Enter",       V_COMPARE, "Compare: replay the selected run at the event the view shows for it; q comes back to the same place") \
	X(LIVE_PAUSE,   '|',        0,         "|",           V_REPLAY, "Live: pause the agent after its current turn, or resume it (live runs only)") \
	X(LIVE_MESSAGE, ':',        0,         ":",           V_REPLAY, "Live: write a message to the agent, delivered before its next turn (live runs only)") \
	X(LIVE_ABORT,   'X',        0,         "X",           V_REPLAY, "Live: abort the run, after a y/n question (live runs only)") \
	X(REEVAL,       'R',        0,         "R",           V_REPLAY, "Re-evaluate the solution as it stood at the selected event (dataset runs: $KBTUI_KBH's python loop; ours: the native loop) and show our numbers beside the agent's own; Esc closes") \
	X(VERDICT_CLEAN, 'K',       0,         "K",           V_ALL,    "Annotate the run (selected, shown, or the compare view's selected side): verdict clean, written to annotations/RUN_ID.yaml at once") \
	X(VERDICT_LEAK, 'L',        0,         "L",           V_ALL,    "Verdict rubric_leak") \
	X(VERDICT_HACK, 'H',        0,         "H",           V_ALL,    "Verdict reward_hack") \
	X(VERDICT_INTERESTING, 'I', 0,         "I",           V_ALL,    "Verdict interesting") \
	X(VERDICT_BUG,  'B',        0,         "B",           V_ALL,    "Verdict bug") \
	X(EDIT_NOTE,    'A',        0,         "A",           V_ALL,    "Edit the run's summary and implication in $EDITOR (else vi)") \
	X(EDIT_YAML,    'Y',        0,         "Y",           V_ALL,    "Open the run's annotation YAML in $VISUAL or $EDITOR (at the line of the quote the annotation pane has selected) and read it again afterwards") \
	X(RELOAD,       'R' & 0x1f, 0,         "Ctrl-R",      V_ALL,    "Read every annotation file again (verdicts, the annotation pane); a file changed on disk is also noticed by itself, on each key and when idle") \
	X(UNDO,         'u',        0,         "u",           V_ALL,    "Undo the last annotation change of this session (again: the one before)") \
	X(NEXT_UNANNOTATED, 'a',    0,         "a",           V_BROWSE | V_REPLAY, "The next run without a verdict, in the browser's order and filter (in the replay: open it; from the search across runs: in its list's order)") \
	X(BLIND,        'x',        0,         "x",           V_ALL,    "Blind mode: hide models and harnesses (names, run ids, grid rows), or show them again") \
	X(THEME,        'T' & 0x1f, 0,         "Ctrl-T",      V_ALL,    "Switch to the next installed colour theme; its name shows in the status bar") \
	X(REDRAW,       'L' & 0x1f, 0,         "Ctrl-L",      V_ALL,    "Redraw the screen") \
	X(HELP,         'h',        KEY_F(1),  "h, F1",       V_ALL,    "Show the keys of the view") \
	X(QUIT,         'q',        0,         "q",           V_ALL,    "Back to the run browser, or quit")

enum action {
	ACT_NONE,
#define KEYS_ENUM(name, key, key2, label, views, help) ACT_##name,
	TUI_ACTIONS(KEYS_ENUM)
#undef KEYS_ENUM
	ACT__COUNT
};

/* One key press. */
struct key {
	int code;     /* ASCII or KEY_*; -1 for other characters */
	wint_t ch;    /* the character, for text entry */
	int fn;       /* a function key */
};

/* Waits for a key (or the timeout set with curses' timeout()); ERR when
 * none came. */
int keys_read(struct key *k);
/* The action a key code has in a view; ACT_NONE when none. */
enum action keys_action(int code, unsigned view);
/* The key table for `kbtui keys` (roff 0) or as man page items (roff 1). */
void keys_print(FILE *out, int roff);
/* The help screen of a view, from the same table. */
void keys_help(struct tlines *L, unsigned view, int width);

#endif
