// Point-feature interpolation for a point-cloud network, written as TF 1.x
// custom ops were (PointNet++'s feature propagation layers are of this kind):
// each query point takes its three nearest points and averages their features,
// weighted by inverse distance. CPU kernels only.
#include <cfloat>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

using namespace tensorflow;

REGISTER_OP("ThreeNearest")
    .Input("query: float32")
    .Input("points: float32")
    .Output("dist: float32")
    .Output("idx: int32")
    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
      ::tensorflow::shape_inference::ShapeHandle query;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 3, &query));
      c->set_output(0, c->MakeShape({c->Dim(query, 0), c->Dim(query, 1), 3}));
      c->set_output(1, c->MakeShape({c->Dim(query, 0), c->Dim(query, 1), 3}));
      return Status::OK();
    });

REGISTER_OP("ThreeInterpolate")
    .Input("features: float32")
    .Input("idx: int32")
    .Input("weight: float32")
    .Output("out: float32")
    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
      ::tensorflow::shape_inference::ShapeHandle features, idx;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 3, &features));
      TF_RETURN_IF_ERROR(c->WithRank(c->input(1), 3, &idx));
      c->set_output(0, c->MakeShape({c->Dim(idx, 0), c->Dim(idx, 1), c->Dim(features, 2)}));
      return Status::OK();
    });

REGISTER_OP("ThreeInterpolateGrad")
    .Input("features: float32")
    .Input("idx: int32")
    .Input("weight: float32")
    .Input("grad_out: float32")
    .Output("grad_features: float32")
    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(0));
      return Status::OK();
    });

class ThreeNearestOp : public OpKernel {
 public:
  explicit ThreeNearestOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& query = context->input(0);
    const Tensor& points = context->input(1);
    OP_REQUIRES(context, query.dims() == 3 && query.shape().dim_size(2) == 3,
                errors::InvalidArgument("ThreeNearest expects (b, n, 3) query points"));
    OP_REQUIRES(context, points.dims() == 3 && points.shape().dim_size(1) >= 3,
                errors::InvalidArgument("ThreeNearest expects (b, m, 3) points, m >= 3"));
    const int64 b = query.shape().dim_size(0), n = query.shape().dim_size(1);
    const int64 m = points.shape().dim_size(1);
    Tensor* dist = NULL;
    Tensor* idx = NULL;
    OP_REQUIRES_OK(context, context->allocate_output(0, TensorShape({b, n, 3}), &dist));
    OP_REQUIRES_OK(context, context->allocate_output(1, TensorShape({b, n, 3}), &idx));
    auto q = query.flat<float>();
    auto p = points.flat<float>();
    auto d_out = dist->flat<float>();
    auto i_out = idx->flat<int32>();
    for (int64 i = 0; i < b; ++i) {
      for (int64 j = 0; j < n; ++j) {
        float best[3] = {FLT_MAX, FLT_MAX, FLT_MAX};
        int32 which[3] = {0, 0, 0};
        for (int64 k = 0; k < m; ++k) {
          float d = 0;
          for (int t = 0; t < 3; ++t) {
            const float e = q((i * n + j) * 3 + t) - p((i * m + k) * 3 + t);
            d += e * e;
          }
          int slot = 3;
          while (slot > 0 && d < best[slot - 1]) --slot;
          for (int s = 2; s > slot; --s) {
            best[s] = best[s - 1];
            which[s] = which[s - 1];
          }
          if (slot < 3) {
            best[slot] = d;
            which[slot] = static_cast<int32>(k);
          }
        }
        for (int t = 0; t < 3; ++t) {
          d_out((i * n + j) * 3 + t) = best[t];
          i_out((i * n + j) * 3 + t) = which[t];
        }
      }
    }
  }
};
REGISTER_KERNEL_BUILDER(Name("ThreeNearest").Device(DEVICE_CPU), ThreeNearestOp);

class ThreeInterpolateOp : public OpKernel {
 public:
  explicit ThreeInterpolateOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& features = context->input(0);
    const Tensor& idx = context->input(1);
    const Tensor& weight = context->input(2);
    const int64 b = features.shape().dim_size(0), m = features.shape().dim_size(1);
    const int64 c = features.shape().dim_size(2), n = idx.shape().dim_size(1);
    Tensor* out = NULL;
    OP_REQUIRES_OK(context, context->allocate_output(0, TensorShape({b, n, c}), &out));
    auto f = features.flat<float>();
    auto ix = idx.flat<int32>();
    auto w = weight.flat<float>();
    auto o = out->flat<float>();
    for (int64 i = 0; i < b; ++i) {
      for (int64 j = 0; j < n; ++j) {
        for (int64 h = 0; h < c; ++h) {
          float sum = 0;
          for (int t = 0; t < 3; ++t) {
            const int64 k = ix((i * n + j) * 3 + t);
            sum += w((i * n + j) * 3 + t) * f((i * m + k) * c + h);
          }
          o((i * n + j) * c + h) = sum;
        }
      }
    }
  }
};
REGISTER_KERNEL_BUILDER(Name("ThreeInterpolate").Device(DEVICE_CPU), ThreeInterpolateOp);

class ThreeInterpolateGradOp : public OpKernel {
 public:
  explicit ThreeInterpolateGradOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& features = context->input(0);
    const Tensor& idx = context->input(1);
    const Tensor& weight = context->input(2);
    const Tensor& grad_out = context->input(3);
    const int64 b = features.shape().dim_size(0), m = features.shape().dim_size(1);
    const int64 c = features.shape().dim_size(2), n = idx.shape().dim_size(1);
    Tensor* grad = NULL;
    OP_REQUIRES_OK(context, context->allocate_output(0, features.shape(), &grad));
    auto ix = idx.flat<int32>();
    auto w = weight.flat<float>();
    auto g = grad_out.flat<float>();
    auto gf = grad->flat<float>();
    gf.setZero();
    for (int64 i = 0; i < b; ++i) {
      for (int64 j = 0; j < n; ++j) {
        for (int t = 0; t < 3; ++t) {
          const int64 k = ix((i * n + j) * 3 + t);
          const float wt = w((i * n + j) * 3 + t);
          for (int64 h = 0; h < c; ++h) gf((i * m + k) * c + h) += wt * g((i * n + j) * c + h);
        }
      }
    }
  }
};
REGISTER_KERNEL_BUILDER(Name("ThreeInterpolateGrad").Device(DEVICE_CPU), ThreeInterpolateGradOp);
