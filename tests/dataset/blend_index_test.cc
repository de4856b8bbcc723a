// The computed blend index (dataset/blend_index.h) on cases worked out by
// hand from Megatron-DeepSpeed's build_blending_indices and
// get_datasets_weights_and_num_samples.
#include "dataset/blend_index.h"

#include <catch2/catch.hpp>
#include <vector>

namespace dsanalyze {
namespace {

std::vector<int64_t> Components(const BlendIndex& index) {
  std::vector<int64_t> out;
  for (uint64_t i = 0; i < index.size(); ++i) out.push_back(index.component(i));
  return out;
}

std::vector<int64_t> Samples(const BlendIndex& index) {
  std::vector<int64_t> out;
  for (uint64_t i = 0; i < index.size(); ++i) out.push_back(index.sample(i));
  return out;
}

TEST_CASE("blend index: the largest w·max(i,1) - drawn wins, ties to the lowest component",
          "[dataset][blend]") {
  // i=0, x=1: errors .5 .25 .25 -> 0; i=1, x=1: -.5 .25 .25 -> 1 (tie);
  // i=2: 0 -.5 .5 -> 2; i=3: .5 -.25 -.25 -> 0; i=4: 0 0 0 -> 0 (tie);
  // i=5: -.5 .25 .25 -> 1; i=6: 0 -.5 .5 -> 2; i=7: .5 -.25 -.25 -> 0.
  const BlendIndex index = BlendIndex::Compute(std::vector<double>{0.5, 0.25, 0.25}, 8);
  CHECK(index.computed());
  CHECK(Components(index) == std::vector<int64_t>{0, 1, 2, 0, 0, 1, 2, 0});
  CHECK(Samples(index) == std::vector<int64_t>{0, 0, 0, 1, 2, 1, 1, 3});
  const BlendIndex even = BlendIndex::Compute(std::vector<double>{0.5, 0.5}, 6);
  CHECK(Components(even) == std::vector<int64_t>{0, 1, 0, 1, 0, 1});
  CHECK(Samples(even) == std::vector<int64_t>{0, 0, 1, 1, 2, 2});
}

TEST_CASE("blend index: component sizes carry Megatron's 1.005", "[dataset][blend]") {
  // 1000 · 0.5 · 1.005 = 502.4999... (1.005 is below 1.005 in binary): 503;
  // 1000 · 0.25 · 1.005 = 251.2499...: 252.
  CHECK(ComponentSamples(1000, std::vector<double>{0.5, 0.25, 0.25}) ==
        std::vector<uint64_t>{503, 252, 252});
  const BlendWeights w = NormaliseBlendWeights(std::vector<double>{2, 1, 1});
  CHECK(w.normalised == std::vector<double>{0.5, 0.25, 0.25});
  CHECK(w.blending == std::vector<double>{0.5, 0.25, 0.25});
}

TEST_CASE("blend index: numpy's pairwise sum, not left to right, from 8 values",
          "[dataset][blend]") {
  // Left to right, each 1 is lost against 2^53; from 8 values numpy adds them
  // in 8 partial sums, combined pairwise.
  const double big = 9007199254740992.0;  // 2^53
  std::vector<double> v = {big, 1, 1, 1, 1, 1, 1, 1};
  double left = 0;
  for (double x : v) left += x;
  CHECK(left == big);
  CHECK(NumpySum(v) == big + 6);  // ((2^53 + 1) + 2) + (2 + 2): 2^53 + 1 rounds to 2^53
  CHECK(NumpySum(std::vector<double>{big, 1, 1}) == big);  // below 8: left to right
}

TEST_CASE("blend index: Megatron-Core's exhaustive blend draws every sample once",
          "[dataset][blend]") {
  // Sizes 3, 1, 2: weights .5, 1/6, 1/3. i=0, x=1: .5 .17 .33 -> 0; i=1: -.5 .17 .33
  // -> 2; i=2, x=2: 0 .33 -.33 -> 1 (now spent); i=3: .5 . 0 -> 0; i=4: 0 . .33 -> 2
  // (spent); i=5: only 0 is left.
  const BlendIndex index = BlendIndex::ComputeExhaustive(std::vector<uint64_t>{3, 1, 2});
  CHECK(Components(index) == std::vector<int64_t>{0, 2, 1, 0, 2, 0});
  CHECK(Samples(index) == std::vector<int64_t>{0, 0, 0, 1, 1, 2});
}

TEST_CASE("blend index: a lone dataset's identity index is the exhaustive blend of one",
          "[dataset][blend]") {
  const BlendIndex identity = BlendIndex::Identity(5);
  const BlendIndex exhaustive = BlendIndex::ComputeExhaustive(std::vector<uint64_t>{5});
  CHECK(identity.computed());
  CHECK(identity.size() == 5);
  CHECK(Components(identity) == Components(exhaustive));
  CHECK(Samples(identity) == Samples(exhaustive));
}

TEST_CASE("blend index: Megatron-Core's sizes: sum of ceil(S·w), components with 0.005 more",
          "[dataset][blend]") {
  // Thirds of 1000: ceil(333.33) = 334 each, a blend of 1002 (Megatron-DeepSpeed's
  // ceil(1000 · w · 1.005) would give 335 each); each component built with
  // ceil(334 · 1.005) = ceil(335.67) = 336.
  const BlendWeights w = NormaliseCoreBlendWeights(std::vector<double>{1, 1, 1});
  CHECK(CoreComponentTargets(1000, w.normalised) == std::vector<uint64_t>{334, 334, 334});
  CHECK(CoreComponentBuild(334) == 336);
  // numpy.sum of 9 values pairs them, 8 partial sums first: both normalisations use it.
  const std::vector<double> nine = {6.235, 6.847, 6.79, 4.424, 8.952, 7.56, 7.71, 3.74, 3.962};
  const BlendWeights core = NormaliseCoreBlendWeights(nine);
  CHECK(core.normalised[0] == nine[0] / NumpySum(nine));
  CHECK(core.blending[0] == core.normalised[0] / NumpySum(core.normalised));
}

}  // namespace
}  // namespace dsanalyze
