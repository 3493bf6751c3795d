#pragma once

#include "auth/awscredentials.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QPair>
#include <QString>

#include <optional>

class QNetworkRequest;

namespace keen {

// AWS Signature Version 4 (header signing, AWS4-HMAC-SHA256), proven on AWS's published test suite.
//
// Paths: the path is taken as the caller built it and percent-encoded once more, which is what non-S3
// services such as Bedrock expect: a model id "a:b" sent as ".../model/a%3Ab/..." is signed as
// ".../model/a%253Ab/...". Pass QUrl::path(QUrl::FullyEncoded). Dot segments and duplicate slashes are
// removed (not S3 style). Query parameters are decoded, encoded strictly and sorted by name, then value.
class SigV4Signer
{
public:
    using HeaderList = QList<QPair<QByteArray, QByteArray>>;

    struct Request
    {
        QByteArray method = "POST";
        QByteArray path = "/"; // see above
        QByteArray query;      // without '?', encoded or not
        HeaderList headers;    // every header to sign; must contain Host. Repeated names are joined with ','.
        QByteArray body;
        std::optional<QByteArray>
            payloadHash; // hex sha256 of the body, or e.g. "UNSIGNED-PAYLOAD"; computed when unset
    };

    struct Options
    {
        bool normalizePath = true;
        bool addContentSha256Header = false; // add and sign x-amz-content-sha256
        bool signSessionToken = true;        // false: add X-Amz-Security-Token after signing, unsigned
    };

    struct Signature
    {
        QByteArray canonicalRequest;
        QByteArray stringToSign;
        QByteArray signature;     // lower-case hex
        QByteArray authorization; // the Authorization header value
        // Headers the caller must send in addition to its own: X-Amz-Date (unless present),
        // X-Amz-Security-Token, x-amz-content-sha256 when asked, and Authorization.
        HeaderList headersToAdd;
    };

    SigV4Signer(AwsCredentials credentials, QString region, QString service);

    Signature sign(const Request &request, const QDateTime &time, const Options &options) const;
    Signature sign(const Request &request, const QDateTime &time = QDateTime::currentDateTimeUtc()) const
    {
        return sign(request, time, Options());
    }

    // Signs a QNetworkRequest for `method` with `body`: the host, content-type and x-amz-* headers it carries
    // are signed, and X-Amz-Date, X-Amz-Security-Token and Authorization are set on it.
    void signRequest(QNetworkRequest &request, const QByteArray &method, const QByteArray &body,
                     const QDateTime &time, const Options &options) const;
    void signRequest(QNetworkRequest &request, const QByteArray &method, const QByteArray &body,
                     const QDateTime &time = QDateTime::currentDateTimeUtc()) const
    {
        signRequest(request, method, body, time, Options());
    }

    static QByteArray canonicalUri(const QByteArray &path, bool normalize);
    static QByteArray canonicalQuery(const QByteArray &query);
    static QByteArray signingKey(const QString &secretAccessKey, const QByteArray &date,
                                 const QString &region, const QString &service);

private:
    AwsCredentials m_credentials;
    QString m_region;
    QString m_service;
};

} // namespace keen
