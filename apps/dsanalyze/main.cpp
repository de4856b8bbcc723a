// dsanalyze: curriculum-learning data analysis for DeepSpeed, under MPI.
// This file only parses the command line; the work is in lib/ (cli/commands.h).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>

#include "cli/commands.h"
#include "comm/launch_guard.h"
#include "parse_error.h"
#include "util/status.h"

namespace {

void AddRunOptions(CLI::App& app, dsanalyze::cli::RunOptions& o, bool config_required) {
  // Not checked with CLI::ExistingFile: every rank would print that error.
  // LoadConfig reports a missing or unreadable file once, like any bad config.
  auto* config = app.add_option("-c,--config", o.config_path, "JSON run configuration");
  if (config_required) config->required();
  app.add_option("--log-level", o.log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  app.add_flag("-q,--quiet", o.quiet, "print errors only");
  app.add_flag("--timings", o.timings, "print per-stage timings for rank 0 and the slowest rank");
  app.add_option("--progress", o.progress,
                 "show each stage's progress and a per-metric summary on stderr: auto (a live "
                 "line on a terminal, also under mpiexec), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  // Deprecated spelling of --progress never, kept for old scripts; not in --help.
  app.add_flag_callback("--no-progress", [&o] { o.progress = "never"; })->group("");
}

CLI::App* AddInspect(CLI::App& app, dsanalyze::cli::InspectOptions& inspect_opts) {
  CLI::App* inspect = app.add_subcommand("inspect", "show the header and rows of a .bin/.idx pair");
  inspect->add_option("prefix", inspect_opts.prefix, "path without .bin/.idx")->required();
  inspect->add_option("--rows", inspect_opts.rows, "row range A:B (end exclusive)");
  inspect
      ->add_option("--dtype-codes", inspect_opts.dtype_codes,
                   "dtype code table; auto: the one the file sizes fit")
      ->check(CLI::IsMember({"auto", "deepspeed", "deepspeed-legacy", "megatron"}))
      ->capture_default_str();
  inspect->add_flag("--json", inspect_opts.json, "machine-readable output");
  return inspect;
}

CLI::App* AddGenerate(CLI::App& app, dsanalyze::cli::GenerateOptions& gen_opts) {
  CLI::App* generate = app.add_subcommand("generate", "write a synthetic Zipf-like token dataset");
  generate->add_option("prefix", gen_opts.prefix, "output path without .bin/.idx")->required();
  generate->add_option("--documents", gen_opts.documents, "number of documents")
      ->check(dsanalyze::PositiveInteger())
      ->capture_default_str();
  generate->add_option("--vocab-size", gen_opts.vocab_size, "vocabulary size")
      ->check(dsanalyze::PositiveInteger())
      ->capture_default_str();
  generate->add_option("--min-length", gen_opts.min_length, "shortest document, tokens")
      ->check(dsanalyze::PositiveInteger())
      ->capture_default_str();
  generate->add_option("--max-length", gen_opts.max_length, "longest document, tokens")
      ->check(dsanalyze::PositiveInteger())
      ->capture_default_str();
  generate->add_option("--seed", gen_opts.seed, "random seed")->capture_default_str();
  generate->add_option("--zipf", gen_opts.zipf, "Zipf exponent of token frequencies")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  generate->add_option("--dtype-codes", gen_opts.dtype_codes, "dtype code table to write")
      ->check(CLI::IsMember({"deepspeed", "deepspeed-legacy", "megatron"}))
      ->capture_default_str();
  generate
      ->add_option("--gpt-maps", gen_opts.gpt_maps,
                   "also write GPT index maps of this sequence length "
                   "(PREFIX_train_indexmap_*_idx.npy)")
      ->check(dsanalyze::PositiveInteger());
  return generate;
}

CLI::App* AddCompare(CLI::App& app, dsanalyze::cli::CompareOptions& o) {
  CLI::App* compare = app.add_subcommand("compare", "compare two output directories by content");
  compare->add_option("a", o.a, "first output directory")->required();
  compare->add_option("b", o.b, "second output directory")->required();
  compare->add_flag("--strict", o.strict, "doc_idx differences count too");
  return compare;
}

CLI::App* AddCurriculum(CLI::App& app, dsanalyze::cli::CurriculumOptions& o) {
  CLI::App* c = app.add_subcommand(
      "curriculum", "replay DeepSpeed's curriculum schedule on an analysis and check it");
  c->add_option("--analysis", o.analysis, "the analysis (save path)")->required();
  c->add_option("--ds-config", o.ds_config,
                "DeepSpeed config with data_efficiency (default: ANALYSIS/curriculum_config.json)");
  c->add_option("--global-batch-size", o.global_batch_size,
                "samples per training step (default: the config's train_batch_size, or "
                "micro batch x gradient accumulation x data-parallel size)")
      ->check(dsanalyze::PositiveInteger());
  c->add_option("--data-parallel-size", o.data_parallel_size,
                "data-parallel ranks, for a config without train_batch_size")
      ->check(dsanalyze::PositiveInteger())
      ->capture_default_str();
  c->add_option("--train-steps", o.train_steps,
                "training steps to replay (default: the config's train_iters, else the largest "
                "total_curriculum_step)")
      ->check(dsanalyze::PositiveInteger());
  c->add_option("--json", o.json,
                "also write the steps and findings as JSON to this file ('-': to stdout, "
                "instead of the table)");
  c->add_option("--svg", o.svg, "also write a chart of difficulty and eligible pool (SVG)");
  c->add_flag("--strict", o.strict, "warnings exit 1 too (errors always do)");
  return c;
}

// The exit code for a command line CLI11 refused (or --help, --version), after
// printing what it asks for.
int ParseErrorExit(const CLI::App& app, const CLI::ParseError& e) {
  // Under mpiexec or srun every rank parses the same command line, before
  // MPI is initialised: only the launcher's rank 0 prints the error.
  if (const std::optional<int> rank = dsanalyze::LauncherRank(); rank && *rank != 0)
    return e.get_exit_code() == 0 ? 0 : dsanalyze::kExitBadInput;
  if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
  std::fprintf(stderr, "dsanalyze: error: %s\n", dsanalyze::ParseErrorLine(app, e).c_str());
  return dsanalyze::kExitBadInput;
}

CLI::App* AddOrder(CLI::App& app, dsanalyze::OrderOptions& o) {
  CLI::App* order = app.add_subcommand(
      "order", "write a whole-dataset training order, easy to hard, as an int64 .npy");
  order->add_option("--analysis", o.analysis, "save path of a finished analysis")->required();
  order->add_option("--metric", o.metrics, "metric to order by; repeat to break ties by another")
      ->required();
  order->add_option("--out", o.out, "the .npy to write")->required();
  order
      ->add_option("--buckets", o.buckets,
                   "K equal-count difficulty buckets, each shuffled (default: none)")
      ->check(dsanalyze::PositiveInteger());
  order->add_option("--seed", o.seed, "seed of the shuffle within buckets, 0 to 2^64-1")
      ->check(dsanalyze::Uint64())
      ->capture_default_str();
  order->add_flag("--descending", o.descending, "hard to easy, buckets from the hardest");
  return order;
}

CLI::App* AddBatches(CLI::App& app, dsanalyze::BatchesRequest& o) {
  CLI::App* b = app.add_subcommand(
      "batches", "plan DeepSpeed's variable batch size (dynamic_batching) from an analysis");
  b->add_option("--analysis", o.analysis, "the analysis (default: the config's metrics_path)");
  b->add_option("--ds-config", o.ds_config, "DeepSpeed config with dynamic_batching");
  b->add_option("--out", o.out, "folder to write the plan to")->required();
  b->add_option("--metric", o.metric, "the length metric")->capture_default_str();
  b->add_option("--max-tokens", o.max_tokens, "tokens a micro-batch holds at most");
  b->add_option("--effective-batch-size", o.effective_batch_size, "micro-batches per batch");
  b->add_option("--data-parallel-size", o.data_parallel_size,
                "data-parallel ranks, for a config without train_batch_size")
      ->capture_default_str();
  b->add_option("--min-batch-size", o.min_batch_size, "samples a micro-batch holds at least");
  b->add_option("--max-batch-size", o.max_batch_size, "samples a micro-batch holds at most");
  b->add_option("--order", o.order, "sequence picking order: dataloader, seqlen or random");
  b->add_option("--seed", o.seed, "seed of the random order (default 1234)");
  b->add_option("--lr-scaling", o.lr_scaling, "LR scaling: linear, sqrt or none");
  b->add_flag("--same-size-microbatches", o.same_size,
              "micro-batches of a batch hold equal counts (pipeline parallelism)");
  b->add_option("--sample-ids", o.sample_ids, "int64 .npy of the sample ids to batch, in order");
  b->add_option("--svg", o.svg, "also write a chart of batch sizes and tokens (SVG)");
  return b;
}

CLI::App* AddMerge(CLI::App& app, dsanalyze::cli::MergeOptions& o) {
  CLI::App* merge = app.add_subcommand(
      "merge", "combine analyses of disjoint sample ranges into the analysis of their union");
  merge->add_option("inputs", o.inputs, "save paths of the analyses")->required();
  merge->add_option("--out", o.out, "save path of the merged analysis")->required();
  merge->add_flag("--timings", o.timings, "print per-stage timings");
  merge
      ->add_option("--progress", o.progress,
                   "show each stage's progress on stderr: auto (a live line on a terminal), "
                   "always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  return merge;
}

// `dsanalyze --timings merge ...`: --timings and --progress given before the
// subcommand count as merge's own (merge's own --progress wins).
dsanalyze::cli::MergeOptions WithTopOptions(dsanalyze::cli::MergeOptions o, const CLI::App& app,
                                            const CLI::App& merge,
                                            const dsanalyze::cli::RunOptions& top) {
  o.timings = o.timings || top.timings;
  if (app.count("--progress") > 0 && merge.count("--progress") == 0) o.progress = top.progress;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  namespace cli = dsanalyze::cli;
  CLI::App app{
      "dsanalyze: per-sample difficulty metrics and curriculum indexes for DeepSpeed.\n"
      "Run the analysis with: mpirun -n N dsanalyze --config run.json"};
  app.set_version_flag("--version", std::string("dsanalyze ") + DSANALYZE_VERSION);
  app.require_subcommand(0, 1);

  cli::RunOptions top_run;
  AddRunOptions(app, top_run, false);

  cli::RunOptions run_opts;
  auto* run = app.add_subcommand("run", "run the analysis described by a config (the default)");
  AddRunOptions(*run, run_opts, true);

  cli::InspectOptions inspect_opts;
  CLI::App* inspect = AddInspect(app, inspect_opts);
  cli::GenerateOptions gen_opts;
  CLI::App* generate = AddGenerate(app, gen_opts);

  cli::VerifyOptions verify_opts;
  auto* verify = app.add_subcommand("verify", "check every invariant of a finished output");
  verify->add_option("save_path", verify_opts.save_path, "output directory")->required();
  verify->add_flag("--json", verify_opts.json, "machine-readable output");

  cli::CompareOptions compare_opts;
  CLI::App* compare = AddCompare(app, compare_opts);

  cli::MetricsOptions metrics_opts;
  auto* metrics = app.add_subcommand("metrics", "list the available metrics");
  metrics->add_option("--plugin", metrics_opts.plugins, "also load this plugin (.so)");
  cli::CurriculumOptions curriculum_opts;
  CLI::App* curriculum = AddCurriculum(app, curriculum_opts);
  dsanalyze::OrderOptions order_opts;
  CLI::App* order = AddOrder(app, order_opts);
  cli::MergeOptions merge_opts;
  CLI::App* merge = AddMerge(app, merge_opts);
  dsanalyze::BatchesRequest batches_opts;
  CLI::App* batches = AddBatches(app, batches_opts);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return ParseErrorExit(app, e);
  }

  if (*run) return cli::Run(run_opts, argc, argv);
  if (*inspect) return cli::Inspect(inspect_opts);
  if (*generate) return cli::Generate(gen_opts);
  if (*verify) return cli::Verify(verify_opts);
  if (*compare) return cli::Compare(compare_opts);
  if (*metrics) return cli::ListMetrics(metrics_opts);
  if (*curriculum) return cli::Curriculum(curriculum_opts);
  if (*order) return cli::Order(order_opts);
  if (*merge) return cli::Merge(WithTopOptions(merge_opts, app, *merge, top_run));
  if (*batches) return cli::Batches(batches_opts);
  if (!top_run.config_path.empty()) return cli::Run(top_run, argc, argv);
  std::fputs(app.help().c_str(), stderr);
  return dsanalyze::kExitBadInput;
}
