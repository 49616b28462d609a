// The strip above the editor while a lesson is open: its title, what the last Run's check said
// (green once it passes, red while it fails), a Hint button that reveals the next hint, and
// the hints shown so far. It only shows a LessonState; the main window feeds that.
#pragma once

#include <QFrame>

class QLabel;
class QPushButton;

namespace tpui {

class LessonState;

class LessonBanner : public QFrame {
    Q_OBJECT
public:
    explicit LessonBanner(LessonState* state, QWidget* parent = nullptr);

private:
    void update_from_state();

    LessonState* state_;
    QLabel* title_;
    QLabel* status_;
    QLabel* hints_;
    QPushButton* hint_;
};

}  // namespace tpui
