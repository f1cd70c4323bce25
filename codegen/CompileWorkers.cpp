#include "codegen/CompileWorkers.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace loom {
namespace Internal {

namespace {

class Workers {
public:
    void run(std::function<void()> work) {
        std::lock_guard<std::mutex> hold(lock);
        queue.push_back(std::move(work));
        // Each idle worker takes one piece of work: more queued than idle workers start one.
        if ((int)queue.size() > idle) {
            std::thread([this] { serve(); }).detach();
        } else {
            changed.notify_one();
        }
    }

private:
    std::mutex lock;
    std::condition_variable changed;
    std::deque<std::function<void()>> queue;
    int idle = 0; // workers waiting for work

    void serve() {
        std::unique_lock<std::mutex> hold(lock);
        for (;;) {
            idle++;
            changed.wait(hold, [this] { return !queue.empty(); });
            idle--;
            std::function<void()> work = std::move(queue.front());
            queue.pop_front();
            hold.unlock();
            work();
            hold.lock();
        }
    }
};

} // namespace

void run_on_compile_worker(std::function<void()> work) {
    // Never destroyed: detached workers wait on it until the process ends.
    static Workers *workers = new Workers;
    workers->run(std::move(work));
}

} // namespace Internal
} // namespace loom
