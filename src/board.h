/* board.h: one leaderboard file of a dataset. kernelbench.com publishes
 * eight (one per GPU and version: leaderboard.json, leaderboard_v1.json,
 * leaderboard_v2.json, leaderboard.fresh-preview.json, leaderboard.h100.json,
 * leaderboard_v2.h100.json, leaderboard.b200.json, leaderboard_v2.b200.json);
 * this is what a board says of itself and which roofline table its
 * peak_fractions were measured against. */
#ifndef KB_BOARD_H
#define KB_BOARD_H

#include <stddef.h>
#include <cjson/cJSON.h>

#define BOARD_MAX 32          /* a run's boards are bits of an unsigned */

struct board {
	char *file;               /* "leaderboard_v2.h100.json" (owned) */
	char *id;                 /* "v2.h100"; "main" for leaderboard.json (owned) */
	char *gpu;                /* hardware.name, NULL when unsaid (owned) */
	char *sm;                 /* hardware.sm (owned), NULL */
	double vram_gb, bandwidth_gbs;  /* < 0: unsaid */
	int schema;               /* schema_version, 0 unsaid */
	char *environment, *environment_notes;  /* v2 (owned), NULL */
	int reward_hack_count;    /* v2; -1 unsaid */
	char **problems;          /* the board's deck, in its order (owned) */
	size_t nproblems;
	char newest[16];          /* the latest run id's "YYYYMMDD_HHMMSS", "" none */
	size_t ncells;            /* run cells it lists */
	int prov;                 /* its enum prov_source slot */
	/* the hardware profile key (RTX_PRO_6000, RTX_PRO_6000_V1, H100, B200)
	 * and roofline table id its numbers used (static), NULL unknown */
	const char *profile, *table;
};

/* The date the publisher corrected the RTX PRO 6000 table to NVIDIA's
 * dense figures: a board whose runs all precede it used the original. */
#define BOARD_RTX_CORRECTED "20260614"

/* Whether a file name is a board's: leaderboard*.json. */
int board_is_file(const char *name);
/* A's place before b's: leaderboard.json, leaderboard_v1.json, then by name. */
int board_cmp_files(const char *a, const char *b);
/* Fills b's header from a board's parsed JSON (file copied). */
void board_read(struct board *b, const char *file, const cJSON *lb);
/* A run cell of b's (its run id): counted, its date kept when newest. */
void board_add_cell(struct board *b, const char *run_id);
/* profile and table, from the GPU name and the newest run's date. */
void board_roofline(struct board *b);
void board_free(struct board *b);

/* --board SEL: the file name, with or without .json, or its id. */
int board_matches(const struct board *b, const char *sel);
/* --gpu SEL: a case-insensitive part of the board's GPU name. */
int board_gpu_matches(const struct board *b, const char *sel);
/* Whether the board's deck has problem p (a board naming none has all). */
int board_has_problem(const struct board *b, const char *p);

/* "leaderboard_v2.h100.json  NVIDIA H100 PCIe  roofline H100  24 runs
 *  6 problems" as a header line (the environment left to the caller); untrusted text left as it is for the caller to make
 * safe (owned). */
char *board_header(const struct board *b);
/* "RTX_PRO_6000_V1 (rtxpro6000-2026-04)" or "unknown" (owned). */
char *board_table_text(const struct board *b);

#endif
