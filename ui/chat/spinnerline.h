#pragma once

#include <QElapsedTimer>
#include <QStringList>
#include <QTimer>
#include <QWidget>

class QLabel;

namespace keen {

// The loader line under the transcript (reference 6.4): one spinner with rotating tips while a turn runs,
// "Compacting..." while any compaction runs (the same spinner, never a second one), "Retrying (attempt
// N)...", and 2-second notifications beside it. When the provider has sent nothing for a while (and no tool
// runs, nobody is asked), it says so and that Esc stops the turn: a stalled stream is waited for minutes.
class SpinnerLine final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SpinnerLine)

public:
    static constexpr int NotificationMs = 2000;
    static constexpr int QuietNoticeMs = 20000;

    explicit SpinnerLine(QWidget *parent = nullptr);
    ~SpinnerLine() override;

    void start();
    void stop();
    bool isRunning() const { return m_running; }
    void setCompacting(bool compacting);
    bool isCompacting() const { return m_compacting; }
    // A session is being read off the GUI thread: "Opening session..." until set back.
    void setOpening(bool opening);
    bool isOpening() const { return m_opening; }
    void setRetrying(int attempt); // 0 clears
    // Something arrived from the provider (text, a tool call, a retry): the quiet time starts again.
    void noteActivity();
    // Whether the turn now waits for the provider (no tool runs and no card waits for the person).
    void setWaitingForProvider(bool waiting);
    void setQuietNoticeAfter(int ms) { m_quietNoticeMs = ms; } // tests
    void showNotification(const QString &text, int durationMs = NotificationMs);
    QString text() const;
    QString notification() const;
    static QStringList tips();

private:
    void refresh();
    void nextTip();

    QLabel *m_glyph;
    QLabel *m_text;
    QLabel *m_notification;
    QTimer m_frameTimer;
    QTimer m_tipTimer;
    QTimer m_notificationTimer;
    QTimer m_quietTimer; // refreshes the quiet time once a second
    QElapsedTimer m_quiet;
    bool m_waitingForProvider = true;
    int m_quietNoticeMs = QuietNoticeMs;
    int m_frame = 0;
    int m_tipIndex = 0;
    bool m_running = false;
    bool m_compacting = false;
    bool m_opening = false;
    int m_retryAttempt = 0;
    QString m_tip;
};

} // namespace keen
