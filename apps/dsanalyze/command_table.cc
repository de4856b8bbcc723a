// The command table (command_table.h): each subcommand's options on the
// command line and the lib/cli function that runs it.
#include "command_table.h"

#include <algorithm>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "parse_error.h"

namespace dsanalyze {
namespace {

void AddInspect(CLI::App& inspect, cli::InspectOptions& o) {
  inspect.add_option("prefix", o.prefix, "path without .bin/.idx");
  inspect.add_option("--config", o.config, "instead of a prefix: the dataset of this run config");
  inspect.add_option("--rows", o.rows, "row range A:B (end exclusive)");
  inspect
      .add_option("--dtype-codes", o.dtype_codes,
                  "dtype code table; auto: the one the file sizes fit")
      ->check(CLI::IsMember({"auto", "deepspeed", "deepspeed-legacy", "megatron"}))
      ->capture_default_str();
  inspect.add_flag("--json", o.json, "machine-readable output");
}

void AddGenerate(CLI::App& generate, cli::GenerateOptions& o) {
  generate.add_option("prefix", o.prefix, "output path without .bin/.idx")->required();
  generate.add_option("--documents", o.documents, "number of documents")
      ->check(PositiveInteger())
      ->capture_default_str();
  generate.add_option("--vocab-size", o.vocab_size, "vocabulary size")
      ->check(PositiveInteger())
      ->capture_default_str();
  generate.add_option("--min-length", o.min_length, "shortest document, tokens")
      ->check(PositiveInteger())
      ->capture_default_str();
  generate.add_option("--max-length", o.max_length, "longest document, tokens")
      ->check(PositiveInteger())
      ->capture_default_str();
  generate.add_option("--seed", o.seed, "random seed")->capture_default_str();
  generate.add_option("--zipf", o.zipf, "Zipf exponent of token frequencies")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  generate.add_option("--dtype-codes", o.dtype_codes, "dtype code table to write")
      ->check(CLI::IsMember({"deepspeed", "deepspeed-legacy", "megatron"}))
      ->capture_default_str();
  generate
      .add_option("--gpt-maps", o.gpt_maps,
                  "also write GPT index maps of this sequence length "
                  "(PREFIX_train_indexmap_*_idx.npy)")
      ->check(PositiveInteger());
}

void AddVerify(CLI::App& verify, cli::VerifyOptions& o) {
  verify.add_option("save_path", o.save_path, "output directory")->required();
  verify.add_flag("--json", o.json, "machine-readable output");
}

void AddMetrics(CLI::App& metrics, cli::MetricsOptions& o) {
  metrics.add_option("--plugin", o.plugins, "also load this plugin (.so)");
}

void AddCompare(CLI::App& compare, cli::CompareOptions& o) {
  compare.add_option("a", o.a, "first output directory")->required();
  compare.add_option("b", o.b, "second output directory")->required();
  compare.add_flag("--strict", o.strict, "doc_idx differences count too");
  compare.add_option("--html", o.html, "also write the comparison as one page (HTML)");
}

void AddCurriculum(CLI::App& c, cli::CurriculumOptions& o) {
  c.add_option("--analysis", o.analysis, "the analysis (save path)")->required();
  c.add_option("--ds-config", o.ds_config,
               "DeepSpeed config with data_efficiency (default: ANALYSIS/curriculum_config.json)");
  CLI::Option* global =
      c.add_option("--global-batch-size", o.global_batch_size,
                   "samples per training step (default: the config's train_batch_size, or "
                   "micro batch x gradient accumulation x data-parallel size)")
          ->check(PositiveInteger());
  // Without the config's batch keys to derive from, --data-parallel-size
  // would be silently ignored.
  c.add_option("--data-parallel-size", o.data_parallel_size,
               "data-parallel ranks, for a config without train_batch_size (not with "
               "--global-batch-size)")
      ->check(PositiveInteger())
      ->capture_default_str()
      ->excludes(global);
  c.add_option("--train-steps", o.train_steps,
               "training steps to replay (default: the config's train_iters, else the largest "
               "total_curriculum_step)")
      ->check(PositiveInteger());
  c.add_option("--json", o.json,
               "also write the steps and findings as JSON to this file ('-': to stdout, "
               "instead of the table)");
  c.add_option("--svg", o.svg, "also write a chart of difficulty and eligible pool (SVG)");
  c.add_option("--html", o.html, "also write the replay as one page (HTML)");
  c.add_flag("--strict", o.strict, "warnings exit 1 too (errors always do)");
}

void AddOrder(CLI::App& order, OrderOptions& o) {
  order.add_option("--analysis", o.analysis, "save path of a finished analysis")->required();
  order.add_option("--metric", o.metrics, "metric to order by; repeat to break ties by another")
      ->required();
  order.add_option("--out", o.out, "the .npy to write (required without --megatron-core-cache)");
  order.add_option("--megatron-core-cache", o.megatron_core_cache,
                   "write a copy of a megatron_core analysis's cache whose index follows the "
                   "order into this new folder");
  order
      .add_option("--buckets", o.buckets,
                  "K equal-count difficulty buckets, each shuffled (default: none)")
      ->check(PositiveInteger());
  order.add_option("--seed", o.seed, "seed of the shuffle within buckets, 0 to 2^64-1")
      ->capture_default_str();
  order.add_flag("--descending", o.descending, "hard to easy, buckets from the hardest");
}

void AddBatches(CLI::App& b, BatchesRequest& o) {
  b.add_option("--analysis", o.analysis, "the analysis (default: the config's metrics_path)");
  b.add_option("--ds-config", o.ds_config, "DeepSpeed config with dynamic_batching");
  b.add_option("--out", o.out, "folder to write the plan to")->required();
  b.add_option("--metric", o.metric, "the length metric")->capture_default_str();
  b.add_option("--max-tokens", o.max_tokens, "tokens a micro-batch holds at most");
  CLI::Option* effective =
      b.add_option("--effective-batch-size", o.effective_batch_size, "micro-batches per batch");
  b.add_option("--data-parallel-size", o.data_parallel_size,
               "data-parallel ranks, for a config without train_batch_size (not with "
               "--effective-batch-size)")
      ->capture_default_str()
      ->excludes(effective);
  b.add_option("--min-batch-size", o.min_batch_size, "samples a micro-batch holds at least");
  b.add_option("--max-batch-size", o.max_batch_size, "samples a micro-batch holds at most");
  b.add_option("--order", o.order, "sequence picking order: dataloader, seqlen or random");
  b.add_option("--seed", o.seed, "seed of the random order (default 1234)");
  b.add_option("--lr-scaling", o.lr_scaling, "LR scaling: linear, sqrt or none");
  b.add_flag("--same-size-microbatches", o.same_size,
             "micro-batches of a batch hold equal counts (pipeline parallelism)");
  b.add_option("--sample-ids", o.sample_ids, "integer .npy of the sample ids to batch, in order");
  b.add_option("--epochs", o.epochs,
               "write K epochs: epoch 1 as DeepSpeed plans it, later ones its batches reshuffled "
               "(default 1)")
      ->check(PositiveInteger());
  b.add_option("--svg", o.svg, "also write charts of batch sizes, tokens and LR by step (SVG)");
  b.add_option("--html", o.html, "also write the plan as one page (HTML)");
  b.add_flag("-q,--quiet", o.quiet, "print errors only (no summary)");
}

void AddMerge(CLI::App& merge, cli::MergeOptions& o) {
  merge.add_option("inputs", o.inputs, "save paths of the analyses")->required();
  merge.add_option("--out", o.out, "save path of the merged analysis")->required();
  merge.add_flag("--timings", o.timings, "print per-stage timings");
  merge
      .add_option("--progress", o.progress,
                  "show each stage's progress on stderr: auto (a live line on a terminal), "
                  "always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
}

// `dsanalyze --timings merge ...`: --timings and --progress given before the
// subcommand count as merge's own (merge's own --progress wins).
int RunMerge(cli::MergeOptions o, const Invocation& invocation) {
  const CLI::App& app = *invocation.app;
  const cli::RunOptions& top = *invocation.top;
  o.timings = o.timings || top.timings;
  if (app.count("--progress") > 0 && app.get_subcommand("merge")->count("--progress") == 0)
    o.progress = top.progress;
  return cli::Merge(o);
}

// `dsanalyze -q batches ...`: -q before the subcommand counts as its own.
int RunBatches(BatchesRequest o, const Invocation& invocation) {
  o.quiet = o.quiet || invocation.top->quiet;
  return cli::Batches(o);
}

// A table entry for a command whose options are `Options`: `add_options` puts
// them on the subcommand; `run` takes the options and, if it needs it, the
// Invocation. The registered command owns its options, where CLI11 writes.
template <class Options, class AddOptions, class Run>
Command Entry(const std::string& name, const std::string& about, AddOptions add_options, Run run,
              std::vector<std::string> top_options = {}) {
  auto add = [=](CLI::App& app) -> RegisteredCommand {
    auto options = std::make_shared<Options>();
    add_options(*app.add_subcommand(name, about), *options);
    return [=](const Invocation& invocation) {
      if constexpr (std::is_invocable_v<Run, const Options&>)
        return run(*options);
      else
        return run(*options, invocation);
    };
  };
  return {.name = name, .add = add, .top_options = std::move(top_options)};
}

std::vector<Command> MakeCommands() {
  return {
      Entry<cli::RunOptions>(
          "run", "run the analysis described by a config (the default)",
          [](CLI::App& run, cli::RunOptions& o) { AddRunOptions(run, o, true); },
          [](const cli::RunOptions& o, const Invocation& in) {
            return cli::Run(o, in.argc, in.argv);
          }),
      Entry<cli::InspectOptions>("inspect", "show the header and rows of a .bin/.idx pair",
                                 AddInspect, cli::Inspect),
      Entry<cli::GenerateOptions>("generate", "write a synthetic Zipf-like token dataset",
                                  AddGenerate, cli::Generate),
      Entry<cli::VerifyOptions>("verify", "check every invariant of a finished output", AddVerify,
                                cli::Verify),
      Entry<cli::CompareOptions>("compare", "compare two output directories by content", AddCompare,
                                 cli::Compare),
      Entry<cli::MetricsOptions>("metrics", "list the available metrics", AddMetrics,
                                 cli::ListMetrics),
      Entry<cli::CurriculumOptions>(
          "curriculum", "replay DeepSpeed's curriculum schedule on an analysis and check it",
          AddCurriculum, cli::Curriculum),
      Entry<OrderOptions>("order",
                          "write a whole-dataset training order, easy to hard, as an int64 .npy",
                          AddOrder, cli::Order),
      Entry<cli::MergeOptions>(
          "merge", "combine analyses of disjoint sample ranges into the analysis of their union",
          AddMerge, RunMerge, {"--timings", "--progress"}),
      Entry<BatchesRequest>(
          "batches", "plan DeepSpeed's variable batch size (dynamic_batching) from an analysis",
          AddBatches, RunBatches, {"--quiet"}),
  };
}

}  // namespace

std::span<const Command> Commands() {
  static const std::vector<Command> commands = MakeCommands();
  return commands;
}

void CheckTopOptions(const CLI::App& app, const Command& command) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() == 0 || option->get_lnames().empty()) continue;
    const std::string name = "--" + option->get_lnames().front();
    if (std::find(command.top_options.begin(), command.top_options.end(), name) ==
        command.top_options.end())
      throw CLI::ValidationError(name, "given before " + command.name +
                                           ", which does not read it there (the options of a "
                                           "command come after its name)");
  }
}

void AddRunOptions(CLI::App& app, cli::RunOptions& o, bool config_required) {
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
  // The old spelling of --progress never, kept for old scripts.
  app.add_flag_callback(
      "--no-progress", [&o] { o.progress = "never"; },
      "same as --progress never (the old spelling)");
}

}  // namespace dsanalyze
