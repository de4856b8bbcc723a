#include "batching/batch_plan.h"

#include <optional>
#include <utility>

#include "batching/batch_input.h"
#include "batching/plan_files.h"
#include "batching/plan_page.h"
#include "batching/plan_report.h"
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

// --svg and --html: files outside --out, and not one file twice.
Status CheckPagePaths(const BatchesRequest& request) {
  for (const auto& [flag, page] :
       {std::pair{"--svg", &request.svg}, std::pair{"--html", &request.html}}) {
    if (page->empty()) continue;
    DSA_RETURN_IF_ERROR(CheckOutsidePlan(request.out, flag, *page));
    DSA_RETURN_IF_ERROR(CheckOutputPath(flag, *page));
  }
  if (!request.svg.empty() && request.svg == request.html)
    return Status::BadInput("--html " + request.html + ": is also --svg: give each its own file");
  return Status::OK();
}

}  // namespace

Result<std::string> WriteBatchPlan(const BatchesRequest& request) {
  DSA_RETURN_IF_ERROR(CheckPagePaths(request));
  SetInterruptStage("open");
  DSA_ASSIGN_OR_RETURN(const BatchParams params, ResolveBatchParams(request));
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
  PlanStats stats(params.rule.max_tokens);
  DSA_ASSIGN_OR_RETURN(
      const PlanCounts counts, PlanBatches(*source, params.rule, [&](const PlannedBatch& batch) {
        const double lr =
            LrScale(params.lr_scaling, batch.samples, params.rule.effective_batch_size);
        stats.Add(batch, lr);
        DSA_RETURN_IF_ERROR(files.Add(batch, lr));
        return CheckInterrupt();
      }));
  DSA_RETURN_IF_ERROR(CheckInterrupt());
  DisarmInterrupts();  // past the last checkpoint the commit always completes
  const PlanReport report{params, request.metric, request.sample_ids, counts, stats};
  if (!request.svg.empty()) DSA_RETURN_IF_ERROR(WriteFileAtomic(request.svg, PlanSvg(report)));
  if (!request.html.empty())
    DSA_RETURN_IF_ERROR(WriteFileAtomic(request.html, PlanPageHtml(report, request.out)));
  DSA_RETURN_IF_ERROR(files.Commit(PlanJson(report).dump(2) + "\n"));
  return PlanSummary(report, request.out);
}

}  // namespace dsanalyze
