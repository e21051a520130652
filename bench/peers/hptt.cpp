// HPTT (springer13/hptt) as a peer: plans in MEASURE mode (its autotuner
// times candidate loop orders and thread splits), alpha 1, beta 0.
#include <hptt.h>

#include <memory>

#include "peers.h"

namespace {

struct plan_f {
    std::shared_ptr<hptt::Transpose<float>> f;
    std::shared_ptr<hptt::Transpose<double>> d;
};

void *plan(const int *perm, int rank, const int *size, int es, const void *in, void *out, int threads)
{
    auto *p = new plan_f;
    if (es == 4)
        p->f = hptt::create_plan(perm, rank, 1.0f, static_cast<const float *>(in), size, nullptr, 0.0f,
                                 static_cast<float *>(out), nullptr, hptt::MEASURE, threads);
    else if (es == 8)
        p->d = hptt::create_plan(perm, rank, 1.0, static_cast<const double *>(in), size, nullptr, 0.0,
                                 static_cast<double *>(out), nullptr, hptt::MEASURE, threads);
    else {
        delete p;
        return nullptr;
    }
    return p;
}

void execute(void *q)
{
    auto *p = static_cast<plan_f *>(q);
    if (p->f)
        p->f->execute();
    else
        p->d->execute();
}

void destroy(void *q) { delete static_cast<plan_f *>(q); }

} // namespace

extern "C" const struct peer_ops peer_hptt = {"hptt", plan, execute, destroy};
