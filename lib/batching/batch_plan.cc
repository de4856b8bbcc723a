#include "batching/batch_plan.h"

#include <optional>
#include <utility>
#include <vector>

#include "batching/batch_input.h"
#include "batching/epochs.h"
#include "batching/plan_files.h"
#include "batching/plan_page.h"
#include "batching/plan_report.h"
#include "output/output_paths.h"
#include "output/save_lock.h"
#include "util/file_util.h"
#include "util/interrupt.h"

namespace dsanalyze {
namespace {

// The analysis, opened; when the config's metrics_path named it, a refusal
// names that key too: the path is resolved from where dsanalyze runs (as
// DeepSpeed resolves it from where training runs), not from the config's
// folder, so the path alone can puzzle.
Result<BatchInput> OpenInput(const BatchParams& params, const std::string& metric) {
  Result<BatchInput> input = OpenBatchInput(params.analysis, metric, params.order);
  const std::string& from = params.from.at("metrics_path");
  if (input.ok() || input.status().code() != Status::Code::kBadInput || from == "--analysis")
    return input;
  return Status::BadInput(from + ": " + input.status().message());
}

// Epochs 2..K (batching/epochs.h): epoch 1's batches, copied in each
// epoch's order.
Status WriteLaterEpochs(const BatchParams& params, uint64_t batches, PlanFiles* files,
                        PlanStats* stats) {
  for (int64_t epoch = 2; epoch <= params.epochs; ++epoch) {
    for (const uint64_t batch : EpochBatchOrder(params.seed, epoch, batches)) {
      DSA_ASSIGN_OR_RETURN(const PlanFiles::Repeated copy, files->Repeat(batch));
      stats->steps.Add(copy.samples, copy.lr_scale);
      DSA_RETURN_IF_ERROR(CheckInterrupt());
    }
  }
  return Status::OK();
}

// The outputs, checked before the analysis is read (output/output_paths.h):
// the analysis is known once the DeepSpeed config has named it.
Status CheckOutputs(const BatchesRequest& request, const BatchParams& params) {
  const std::vector<std::string> inputs = {params.analysis, request.ds_config, request.sample_ids};
  DSA_RETURN_IF_ERROR(CheckOutsideAnalyses("--out", request.out, inputs));
  for (const auto& [flag, page] :
       {std::pair{"--svg", &request.svg}, std::pair{"--html", &request.html}})
    if (!page->empty()) DSA_RETURN_IF_ERROR(CheckOutputFile(flag, *page, inputs));
  return Status::OK();
}

// --svg and --html: files outside --out, and not one file twice. Checked
// first: it needs no input.
Status CheckPagePaths(const BatchesRequest& request) {
  for (const auto& [flag, page] :
       {std::pair{"--svg", &request.svg}, std::pair{"--html", &request.html}})
    if (!page->empty()) DSA_RETURN_IF_ERROR(CheckOutsidePlan(request.out, flag, *page));
  if (!request.svg.empty() && request.svg == request.html)
    return Status::BadInput("--html " + request.html + ": is also --svg: give each its own file");
  return Status::OK();
}

}  // namespace

Result<std::string> WriteBatchPlan(const BatchesRequest& request) {
  DSA_RETURN_IF_ERROR(CheckPagePaths(request));
  SetInterruptStage("open");
  DSA_ASSIGN_OR_RETURN(const BatchParams params, ResolveBatchParams(request));
  DSA_RETURN_IF_ERROR(CheckOutputs(request, params));
  // The analysis is read (lazily, by the planner) until the plan is written.
  DSA_ASSIGN_OR_RETURN(const std::vector<SaveLock> reading, LockForReading({params.analysis}));
  DSA_ASSIGN_OR_RETURN(const BatchInput input, OpenInput(params, request.metric));
  std::optional<FilterIds> filter;
  if (!request.sample_ids.empty()) {
    DSA_ASSIGN_OR_RETURN(filter, ReadFilterIds(request.sample_ids, input.samples));
  }
  DSA_RETURN_IF_ERROR(CheckInterrupt());
  SetInterruptStage("write");
  DSA_ASSIGN_OR_RETURN(PlanFiles files, PlanFiles::Create(request.out));
  DSA_ASSIGN_OR_RETURN(
      std::unique_ptr<SampleSource> source,
      MakeSampleSource(input, filter ? &*filter : nullptr, params.order, params.seed));
  PlanStats stats;
  DSA_ASSIGN_OR_RETURN(
      const PlanCounts counts, PlanBatches(*source, params.rule, [&](const PlannedBatch& batch) {
        const double lr =
            LrScale(params.lr_scaling, batch.samples, params.rule.effective_batch_size);
        stats.Add(batch, lr);
        DSA_RETURN_IF_ERROR(files.Add(batch, lr));
        return CheckInterrupt();
      }));
  DSA_RETURN_IF_ERROR(WriteLaterEpochs(params, counts.batches, &files, &stats));
  DSA_RETURN_IF_ERROR(CheckInterrupt());
  DisarmInterrupts();  // past the last checkpoint the commit always completes
  const PlanReport report{params, request.metric, request.sample_ids, counts, stats, input.samples};
  if (!request.svg.empty()) DSA_RETURN_IF_ERROR(WriteFileAtomic(request.svg, PlanSvg(report)));
  if (!request.html.empty())
    DSA_RETURN_IF_ERROR(WriteFileAtomic(request.html, PlanPageHtml(report, request.out)));
  DSA_RETURN_IF_ERROR(files.Commit(PlanJson(report).dump(2) + "\n"));
  return PlanSummary(report, request.out);
}

}  // namespace dsanalyze
