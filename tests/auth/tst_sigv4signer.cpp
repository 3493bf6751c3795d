// SigV4 on every case of AWS's classic test suite, and AWS credential resolution from the environment and
// files.
#include "auth/awscontainercredentials.h"
#include "auth/awscredentials.h"
#include "auth/sigv4signer.h"
#include "testenvironment.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QNetworkRequest>
#include <QTemporaryDir>
#include <QTest>
#include <QTimeZone>

using namespace keen;

namespace {

const QString SuiteAccessKey = QStringLiteral("AKIDEXAMPLE");
const QString SuiteSecret = QStringLiteral("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
// The token of get-vanilla-with-session-token (it is not in the .req; its .creq shows it).
const QString VanillaSessionToken =
    QStringLiteral("6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267");

QDateTime suiteTime()
{
    return QDateTime(QDate(2015, 8, 30), QTime(12, 36, 0), QTimeZone::utc());
}

// Reads a suite .req: request line (the target may contain a raw space), "Name:value" headers with obsolete
// folding (indented continuation lines), a blank line, then the body.
SigV4Signer::Request parseReq(const QByteArray &text)
{
    SigV4Signer::Request request;
    const qsizetype headEnd = text.indexOf("\n\n");
    const QByteArray head = headEnd < 0 ? text : text.left(headEnd);
    request.body = headEnd < 0 ? QByteArray() : text.mid(headEnd + 2);
    const QList<QByteArray> lines = head.split('\n');

    const QByteArray requestLine = lines.value(0);
    const qsizetype firstSpace = requestLine.indexOf(' ');
    const qsizetype versionStart = requestLine.lastIndexOf(" HTTP/");
    request.method = requestLine.left(firstSpace);
    const QByteArray target = requestLine.mid(firstSpace + 1, versionStart - firstSpace - 1);
    const qsizetype question = target.indexOf('?');
    request.path = question < 0 ? target : target.left(question);
    request.query = question < 0 ? QByteArray() : target.mid(question + 1);

    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray &line = lines.at(i);
        if ((line.startsWith(' ') || line.startsWith('\t')) && !request.headers.isEmpty()) {
            request.headers.last().second += '\n' + line;
            continue;
        }
        const qsizetype colon = line.indexOf(':');
        if (colon > 0)
            request.headers.append({line.left(colon), line.mid(colon + 1)});
    }
    return request;
}

void writeFile(const QString &path, const QByteArray &contents)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(contents);
}

} // namespace

class TestSigV4Signer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void suite_data();
    void suite();
    void signingKeyOfTheDocumentation();
    void signRequestDoubleEncodesBedrockModelIds();
    void payloadHashHeader();

    void iniParsing();
    void environmentWins();
    void environmentNeedsBothKeys();
    void defaultProfileFromCredentialsFile();
    void namedProfileAndRegionFromConfig();
    void keysInConfigFile();
    void fileOverrides();
    void regionPrecedence();
    void missingProfile();
    void unsupportedProfile();
    void credentialProcessProfile();
    void containerEndpoints();
    void ecsContainerProfile();
    void nothingConfigured();
};

void TestSigV4Signer::suite_data()
{
    // All 34 cases of the classic suite. None is left out: the only upstream defect, the .sreq of
    // get-vanilla-with-session-token, was not copied (tests/fixtures/SOURCES.md); its .creq/.sts/.authz are
    // used.
    QTest::addColumn<QString>("dir");
    QTest::addColumn<QString>("name");
    const QString root = test::fixturePath(QStringLiteral("aws/sigv4"));
    QDirIterator it(root, {QStringLiteral("*.req")}, QDir::Files, QDirIterator::Subdirectories);
    QStringList cases;
    while (it.hasNext()) {
        it.next();
        cases.append(QDir(root).relativeFilePath(it.filePath()));
    }
    cases.sort();
    QCOMPARE(cases.size(), 34);
    for (const QString &file : std::as_const(cases)) {
        const QFileInfo info(file);
        QTest::newRow(qPrintable(info.path()))
            << QStringLiteral("aws/sigv4/") + info.path() << info.baseName();
    }
}

void TestSigV4Signer::suite()
{
    QFETCH(QString, dir);
    QFETCH(QString, name);
    const QString base = dir + QLatin1Char('/') + name;
    const SigV4Signer::Request request = parseReq(test::readFixture(base + QStringLiteral(".req")));

    AwsCredentials credentials;
    credentials.accessKeyId = SuiteAccessKey;
    credentials.secretAccessKey = SuiteSecret;
    SigV4Signer::Options options;
    if (name == QLatin1String("get-vanilla-with-session-token")) {
        credentials.sessionToken = VanillaSessionToken; // a credential: the signer adds and signs the header
    } else if (name == QLatin1String("post-sts-header-after")) {
        // The token is added after signing, unsigned; the value is the suite's (post-sts-token/readme.txt).
        const QByteArray readme = test::readFixture(QStringLiteral("aws/sigv4/post-sts-token/readme.txt"));
        credentials.sessionToken = QString::fromLatin1(readme.mid(readme.indexOf("AQoDYXdz")).trimmed());
        options.signSessionToken = false;
    } else if (name == QLatin1String("post-sts-header-before")) {
        // The token is already a header of the .req; the same credential must not add it twice.
        for (const auto &[headerName, value] : request.headers) {
            if (headerName.compare("x-amz-security-token", Qt::CaseInsensitive) == 0)
                credentials.sessionToken = QString::fromLatin1(value);
        }
        QVERIFY(!credentials.sessionToken.isEmpty());
    }

    const SigV4Signer signer(credentials, QStringLiteral("us-east-1"), QStringLiteral("service"));
    const SigV4Signer::Signature signature = signer.sign(request, suiteTime(), options);
    QCOMPARE(signature.canonicalRequest, test::readFixture(base + QStringLiteral(".creq")));
    QCOMPARE(signature.stringToSign, test::readFixture(base + QStringLiteral(".sts")));
    QCOMPARE(signature.authorization, test::readFixture(base + QStringLiteral(".authz")));

    // Every .req already has X-Amz-Date, so the signer adds only the token (when it has one) and
    // Authorization.
    SigV4Signer::HeaderList expectedAdded;
    if (name == QLatin1String("get-vanilla-with-session-token") ||
        name == QLatin1String("post-sts-header-after"))
        expectedAdded.append({"X-Amz-Security-Token", credentials.sessionToken.toLatin1()});
    expectedAdded.append({"Authorization", signature.authorization});
    QCOMPARE(signature.headersToAdd, expectedAdded);

    // The signed request shows the same Authorization (the one wrong upstream .sreq is not in the fixtures).
    if (name != QLatin1String("get-vanilla-with-session-token")) {
        const QByteArray sreq = test::readFixture(base + QStringLiteral(".sreq"));
        QVERIFY(sreq.contains(QByteArray("Authorization: " + signature.authorization)));
    }
}

void TestSigV4Signer::signingKeyOfTheDocumentation()
{
    // The example of AWS's "Calculate the signature" documentation (secret, 20120215, us-east-1, iam).
    QCOMPARE(SigV4Signer::signingKey(QStringLiteral("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"), "20120215",
                                     QStringLiteral("us-east-1"), QStringLiteral("iam"))
                 .toHex(),
             QByteArray("f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"));
}

void TestSigV4Signer::signRequestDoubleEncodesBedrockModelIds()
{
    AwsCredentials credentials;
    credentials.accessKeyId = SuiteAccessKey;
    credentials.secretAccessKey = SuiteSecret;
    credentials.sessionToken = QStringLiteral("session-token");
    const SigV4Signer signer(credentials, QStringLiteral("us-east-1"), QStringLiteral("bedrock"));

    QUrl url(QStringLiteral("https://bedrock-runtime.us-east-1.amazonaws.com"));
    url.setPath(
        QStringLiteral("/model/") +
            QString::fromLatin1(QUrl::toPercentEncoding(QStringLiteral("us.amazon.nova-micro-v1:0"))) +
            QStringLiteral("/converse-stream"),
        QUrl::StrictMode);
    QCOMPARE(url.path(QUrl::FullyEncoded),
             QStringLiteral("/model/us.amazon.nova-micro-v1%3A0/converse-stream"));
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("User-Agent", "keen"); // not signed: the network stack may rewrite it
    const QByteArray body = R"({"messages":[]})";
    signer.signRequest(request, "POST", body, suiteTime());

    QCOMPARE(request.rawHeader("X-Amz-Date"), QByteArray("20150830T123600Z"));
    QCOMPARE(request.rawHeader("X-Amz-Security-Token"), QByteArray("session-token"));
    const QByteArray authorization = request.rawHeader("Authorization");
    QVERIFY(authorization.startsWith(
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/bedrock/aws4_request, "
        "SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature="));

    // The same request described by hand gives the same signature, with the model id encoded twice.
    SigV4Signer::Request manual;
    manual.method = "POST";
    manual.path = "/model/us.amazon.nova-micro-v1%3A0/converse-stream";
    manual.headers = {{"Content-Type", "application/json"},
                      {"Host", "bedrock-runtime.us-east-1.amazonaws.com"},
                      {"X-Amz-Date", "20150830T123600Z"}};
    manual.body = body;
    const SigV4Signer::Signature signature = signer.sign(manual, suiteTime());
    QVERIFY(signature.canonicalRequest.startsWith(
        "POST\n/model/us.amazon.nova-micro-v1%253A0/converse-stream\n\n"));
    QCOMPARE(signature.authorization, authorization);
}

void TestSigV4Signer::payloadHashHeader()
{
    AwsCredentials credentials;
    credentials.accessKeyId = SuiteAccessKey;
    credentials.secretAccessKey = SuiteSecret;
    const SigV4Signer signer(credentials, QStringLiteral("us-east-1"), QStringLiteral("service"));
    SigV4Signer::Request request;
    request.method = "POST";
    request.headers = {{"Host", "example.amazonaws.com"}};
    request.body = "Param1=value1";
    SigV4Signer::Options options;
    options.addContentSha256Header = true;
    const SigV4Signer::Signature signature = signer.sign(request, suiteTime(), options);
    const QByteArray hash = "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e";
    QVERIFY(signature.canonicalRequest.contains(QByteArray("x-amz-content-sha256:" + hash + '\n')));
    QVERIFY(
        signature.canonicalRequest.endsWith(QByteArray("\nhost;x-amz-content-sha256;x-amz-date\n" + hash)));
    QVERIFY(signature.headersToAdd.contains(qMakePair(QByteArray("x-amz-content-sha256"), hash)));
    QVERIFY(
        signature.headersToAdd.contains(qMakePair(QByteArray("X-Amz-Date"), QByteArray("20150830T123600Z"))));

    request.payloadHash = "UNSIGNED-PAYLOAD";
    QVERIFY(signer.sign(request, suiteTime()).canonicalRequest.endsWith("\nUNSIGNED-PAYLOAD"));
}

void TestSigV4Signer::iniParsing()
{
    const AwsCredentials::IniSections sections =
        AwsCredentials::parseIni("\xEF\xBB\xBF# comment\r\n"
                                 "ignored = before any section\n"
                                 "[default]\r\n"
                                 "aws_access_key_id = AKID1\r\n"
                                 "AWS_Secret_Access_Key=secret=with=equals\n"
                                 "; another comment\n"
                                 "s3 =\n"
                                 "  max_concurrent_requests = 20\n"
                                 "[ profile   dev ]\n"
                                 "region = eu-west-1\n"
                                 "[empty]\n");
    QCOMPARE(sections.size(), 3);
    const QMap<QString, QString> defaults = sections.value(QStringLiteral("default"));
    QCOMPARE(defaults.value(QStringLiteral("aws_access_key_id")), QStringLiteral("AKID1"));
    QCOMPARE(defaults.value(QStringLiteral("aws_secret_access_key")), QStringLiteral("secret=with=equals"));
    QVERIFY(!defaults.contains(QStringLiteral("max_concurrent_requests")));
    QCOMPARE(sections.value(QStringLiteral("profile dev")).value(QStringLiteral("region")),
             QStringLiteral("eu-west-1"));
    QVERIFY(sections.contains(QStringLiteral("empty")));
}

void TestSigV4Signer::environmentWins()
{
    QTemporaryDir home;
    writeFile(home.filePath(QStringLiteral(".aws/credentials")),
              "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = filesecret\n");
    QProcessEnvironment env;
    env.insert(QStringLiteral("AWS_ACCESS_KEY_ID"), QStringLiteral("ENVKEY"));
    env.insert(QStringLiteral("AWS_SECRET_ACCESS_KEY"), QStringLiteral("envsecret"));
    env.insert(QStringLiteral("AWS_SESSION_TOKEN"), QStringLiteral("envtoken"));
    env.insert(QStringLiteral("AWS_PROFILE"), QStringLiteral("default"));
    const AwsCredentials::Result result = AwsCredentials::resolve(env, home.path());
    QVERIFY2(result.ok(), qPrintable(result.error));
    QCOMPARE(result.credentials.accessKeyId, QStringLiteral("ENVKEY"));
    QCOMPARE(result.credentials.secretAccessKey, QStringLiteral("envsecret"));
    QCOMPARE(result.credentials.sessionToken, QStringLiteral("envtoken"));
    QCOMPARE(result.credentials.source, QStringLiteral("environment"));
    QCOMPARE(result.credentials.region, QStringLiteral("us-east-1"));
    QVERIFY(result.credentials.isValid());
}

void TestSigV4Signer::environmentNeedsBothKeys()
{
    QTemporaryDir home;
    QProcessEnvironment env;
    env.insert(QStringLiteral("AWS_SECRET_ACCESS_KEY"), QStringLiteral("lonely-secret-value"));
    const AwsCredentials::Result result = AwsCredentials::resolve(env, home.path());
    QVERIFY(!result.ok());
    QVERIFY(result.error.contains(QStringLiteral("AWS_SECRET_ACCESS_KEY")));
    QVERIFY(!result.error.contains(QStringLiteral("lonely-secret-value")));
}

void TestSigV4Signer::defaultProfileFromCredentialsFile()
{
    QTemporaryDir home;
    writeFile(home.filePath(QStringLiteral(".aws/credentials")),
              "[other]\naws_access_key_id = OTHER\naws_secret_access_key = othersecret\n"
              "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = defaultsecret\n"
              "aws_session_token = defaulttoken\n");
    writeFile(home.filePath(QStringLiteral(".aws/config")), "[default]\nregion = eu-central-1\n");
    const AwsCredentials::Result result = AwsCredentials::resolve(QProcessEnvironment(), home.path());
    QVERIFY2(result.ok(), qPrintable(result.error));
    QCOMPARE(result.credentials.accessKeyId, QStringLiteral("AKIDDEFAULT"));
    QCOMPARE(result.credentials.secretAccessKey, QStringLiteral("defaultsecret"));
    QCOMPARE(result.credentials.sessionToken, QStringLiteral("defaulttoken"));
    QCOMPARE(result.credentials.region, QStringLiteral("eu-central-1"));
    QCOMPARE(result.credentials.profile, QStringLiteral("default"));
    QCOMPARE(result.credentials.source,
             QDir::toNativeSeparators(home.filePath(QStringLiteral(".aws/credentials"))));
}

void TestSigV4Signer::namedProfileAndRegionFromConfig()
{
    QTemporaryDir home;
    writeFile(home.filePath(QStringLiteral(".aws/credentials")),
              "[default]\naws_access_key_id = DEFAULT\naws_secret_access_key = defaultsecret\n"
              "[work]\naws_access_key_id = AKIDWORK\naws_secret_access_key = worksecret\n");
    // In the config file a named profile is "[profile name]"; a bare "[work]" there is not that profile.
    writeFile(
        home.filePath(QStringLiteral(".aws/config")),
        "[default]\nregion = us-west-2\n[work]\nregion = wrong-1\n[profile work]\nregion = ap-southeast-2\n");
    QProcessEnvironment env;
    env.insert(QStringLiteral("AWS_PROFILE"), QStringLiteral("work"));
    const AwsCredentials::Result result = AwsCredentials::resolve(env, home.path());
    QVERIFY2(result.ok(), qPrintable(result.error));
    QCOMPARE(result.credentials.accessKeyId, QStringLiteral("AKIDWORK"));
    QCOMPARE(result.credentials.sessionToken, QString());
    QCOMPARE(result.credentials.region, QStringLiteral("ap-southeast-2"));
    QCOMPARE(result.credentials.profile, QStringLiteral("work"));
}

void TestSigV4Signer::keysInConfigFile()
{
    QTemporaryDir home;
    writeFile(
        home.filePath(QStringLiteral(".aws/config")),
        "[profile cfg]\nregion = eu-north-1\naws_access_key_id = AKIDCFG\naws_secret_access_key = cfgsecret\n"
        "aws_session_token = cfgtoken\n");
    QProcessEnvironment env;
    env.insert(QStringLiteral("AWS_PROFILE"), QStringLiteral("cfg"));
    const AwsCredentials::Result result = AwsCredentials::resolve(env, home.path());
    QVERIFY2(result.ok(), qPrintable(result.error));
    QCOMPARE(result.credentials.accessKeyId, QStringLiteral("AKIDCFG"));
    QCOMPARE(result.credentials.sessionToken, QStringLiteral("cfgtoken"));
    QCOMPARE(result.credentials.region, QStringLiteral("eu-north-1"));
    QCOMPARE(result.credentials.source,
             QDir::toNativeSeparators(home.filePath(QStringLiteral(".aws/config"))));
}

void TestSigV4Signer::fileOverrides()
{
    QTemporaryDir home;
    QTemporaryDir elsewhere;
    writeFile(home.filePath(QStringLiteral(".aws/credentials")),
              "[default]\naws_access_key_id = HOME\naws_secret_access_key = homesecret\n");
    writeFile(elsewhere.filePath(QStringLiteral("creds.ini")),
              "[default]\naws_access_key_id = OVERRIDE\naws_secret_access_key = overridesecret\n");
    writeFile(elsewhere.filePath(QStringLiteral("config.ini")), "[default]\nregion = sa-east-1\n");
    QProcessEnvironment env;
    env.insert(QStringLiteral("AWS_SHARED_CREDENTIALS_FILE"),
               elsewhere.filePath(QStringLiteral("creds.ini")));
    env.insert(QStringLiteral("AWS_CONFIG_FILE"), elsewhere.filePath(QStringLiteral("config.ini")));
    const AwsCredentials::Result result = AwsCredentials::resolve(env, home.path());
    QVERIFY2(result.ok(), qPrintable(result.error));
    QCOMPARE(result.credentials.accessKeyId, QStringLiteral("OVERRIDE"));
    QCOMPARE(result.credentials.region, QStringLiteral("sa-east-1"));
}

void TestSigV4Signer::regionPrecedence()
{
    QTemporaryDir home;
    writeFile(home.filePath(QStringLiteral(".aws/config")),
              "[default]\nregion = from-profile\naws_access_key_id = A\naws_secret_access_key = S\n");
    QProcessEnvironment env;
    QCOMPARE(AwsCredentials::resolve(env, home.path()).credentials.region, QStringLiteral("from-profile"));
    env.insert(QStringLiteral("AWS_DEFAULT_REGION"), QStringLiteral("from-default-region"));
    QCOMPARE(AwsCredentials::resolve(env, home.path()).credentials.region,
             QStringLiteral("from-default-region"));
    env.insert(QStringLiteral("AWS_REGION"), QStringLiteral("from-region"));
    QCOMPARE(AwsCredentials::resolve(env, home.path()).credentials.region, QStringLiteral("from-region"));

    QTemporaryDir bare;
    QCOMPARE(AwsCredentials::resolve(QProcessEnvironment(), bare.path()).credentials.region,
             QStringLiteral("us-east-1"));
}

void TestSigV4Signer::missingProfile()
{
    QTemporaryDir home;
    writeFile(home.filePath(QStringLiteral(".aws/credentials")),
              "[default]\naws_access_key_id = AKIDSECRETISH\naws_secret_access_key = do-not-print-me\n");
    QProcessEnvironment env;
    env.insert(QStringLiteral("AWS_PROFILE"), QStringLiteral("nope"));
    const AwsCredentials::Result result = AwsCredentials::resolve(env, home.path());
    QVERIFY(!result.ok());
    QVERIFY(!result.credentials.isValid());
    QVERIFY(result.error.contains(QStringLiteral("\"nope\"")));
    QVERIFY(!result.error.contains(QStringLiteral("do-not-print-me")));
    QVERIFY(!result.error.contains(QStringLiteral("AKIDSECRETISH")));
}

void TestSigV4Signer::unsupportedProfile()
{
    QTemporaryDir home;
    writeFile(
        home.filePath(QStringLiteral(".aws/config")),
        "[profile role]\nrole_arn = arn:aws:iam::1234:role/dev\nsource_profile = default\n"
        "mfa_serial = arn:aws:iam::1234:mfa/me\nregion = us-west-1\n"
        "[profile sso]\nsso_session = corp\nsso_account_id = 1234\n"
        "[profile ec2]\nrole_arn = arn:aws:iam::1234:role/dev\ncredential_source = Ec2InstanceMetadata\n");
    QProcessEnvironment env;
    env.insert(QStringLiteral("AWS_PROFILE"), QStringLiteral("role"));
    AwsCredentials::Result result = AwsCredentials::resolve(env, home.path());
    QVERIFY(!result.ok()); // a role that needs an MFA code typed in
    QVERIFY2(result.error.contains(QStringLiteral("mfa_serial")), qPrintable(result.error));
    QCOMPARE(result.credentials.region, QStringLiteral("us-west-1"));
    // The instance metadata as a role's source: asked at the default address unless turned off.
    env.insert(QStringLiteral("AWS_PROFILE"), QStringLiteral("ec2"));
    result = AwsCredentials::resolve(env, home.path());
    QVERIFY2(result.ok(), qPrintable(result.error));
    QVERIFY(result.credentials.assumeRole.fromInstanceMetadata);
    QCOMPARE(result.credentials.instanceMetadataEndpoint, QStringLiteral("http://169.254.169.254"));
    env.insert(QStringLiteral("AWS_EC2_METADATA_DISABLED"), QStringLiteral("TRUE"));
    result = AwsCredentials::resolve(env, home.path());
    QVERIFY(!result.ok());
    QVERIFY2(
        result.error.contains(QStringLiteral("credential_source = Ec2InstanceMetadata, but "
                                             "AWS_EC2_METADATA_DISABLED turns the instance metadata off")),
        qPrintable(result.error));
    env.remove(QStringLiteral("AWS_EC2_METADATA_DISABLED"));
    // An SSO profile without all it needs says what is missing.
    env.insert(QStringLiteral("AWS_PROFILE"), QStringLiteral("sso"));
    result = AwsCredentials::resolve(env, home.path());
    QVERIFY(!result.ok());
    QVERIFY2(result.error.contains(QStringLiteral("sso_start_url, sso_region, sso_role_name")),
             qPrintable(result.error));
}

void TestSigV4Signer::credentialProcessProfile()
{
    QTemporaryDir home;
    writeFile(home.filePath(QStringLiteral(".aws/config")),
              "[profile vault]\ncredential_process = aws-vault exec work --json\nregion = eu-north-1\n"
              "[profile both]\nsso_session = corp\ncredential_process = helper\n");
    QProcessEnvironment env;
    env.insert(QStringLiteral("AWS_PROFILE"), QStringLiteral("vault"));
    AwsCredentials::Result result = AwsCredentials::resolve(env, home.path());
    QVERIFY2(result.ok(), qPrintable(result.error));
    QCOMPARE(result.credentials.credentialProcess, QStringLiteral("aws-vault exec work --json"));
    QVERIFY(!result.credentials.isValid()); // the keys come from running it (AwsCredentialProcess)
    QCOMPARE(result.credentials.region, QStringLiteral("eu-north-1"));
    // An SSO sign-in in the same profile comes first.
    env.insert(QStringLiteral("AWS_PROFILE"), QStringLiteral("both"));
    result = AwsCredentials::resolve(env, home.path());
    QVERIFY(!result.ok());
    QVERIFY2(result.error.contains(QStringLiteral("signs in with SSO")), qPrintable(result.error));
}

// The container's keys come last (after the environment and the profile), from the endpoint its variables
// name: RELATIVE_URI on the ECS host (never asked here), else FULL_URI if the SDKs would ask it.
void TestSigV4Signer::containerEndpoints()
{
    QCOMPARE(AwsContainerCredentials::relativeEndpoint(QStringLiteral("/v2/credentials/fake-task-guid")),
             QStringLiteral("http://169.254.170.2/v2/credentials/fake-task-guid"));
    QCOMPARE(AwsContainerCredentials::relativeEndpoint(QStringLiteral("v2/credentials/x")),
             QStringLiteral("http://169.254.170.2/v2/credentials/x"));

    QTemporaryDir home;
    QProcessEnvironment env;
    env.insert(QStringLiteral("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"),
               QStringLiteral("/v2/credentials/fake-task-guid"));
    env.insert(QStringLiteral("AWS_CONTAINER_CREDENTIALS_FULL_URI"), QStringLiteral("http://127.0.0.1:9/x"));
    AwsCredentials::Result result = AwsCredentials::resolve(env, home.path());
    QVERIFY2(result.ok(), qPrintable(result.error));
    QCOMPARE(result.credentials.containerEndpoint,
             QStringLiteral("http://169.254.170.2/v2/credentials/fake-task-guid")); // RELATIVE_URI first
    QCOMPARE(result.credentials.source, QStringLiteral("container"));
    QVERIFY(!result.credentials.isValid()); // the keys come from asking it (AwsContainerCredentials)
    AwsCredentials other = result.credentials;
    QVERIFY(other.sameHelperAs(result.credentials));
    other.containerEndpoint = QStringLiteral("http://127.0.0.1:9/x");
    QVERIFY(!other.sameHelperAs(result.credentials)); // a cache tells one endpoint's keys from another's

    env.remove(QStringLiteral("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"));
    for (const char *allowed :
         {"https://credentials.example.test/v1", "http://127.0.0.1:8080/creds", "http://127.9.8.7/creds",
          "http://localhost:9/creds", "http://[::1]:9/creds", "http://169.254.170.2/creds",
          "http://169.254.170.23/v1/credentials", "http://[fd00:ec2::23]/v1/credentials"}) {
        env.insert(QStringLiteral("AWS_CONTAINER_CREDENTIALS_FULL_URI"), QLatin1String(allowed));
        result = AwsCredentials::resolve(env, home.path());
        QVERIFY2(result.ok(), qPrintable(QLatin1String(allowed) + QLatin1String(": ") + result.error));
        QCOMPARE(result.credentials.containerEndpoint, QLatin1String(allowed));
    }
    for (const char *refused : {"http://192.0.2.10/creds?id=private", "http://credentials.example.test/creds",
                                "http://169.254.169.254/latest/meta-data/iam", "http://[fd00:ec2::254]/creds",
                                "ftp://127.0.0.1/c", "file:///etc/passwd", "not a url"}) {
        env.insert(QStringLiteral("AWS_CONTAINER_CREDENTIALS_FULL_URI"), QLatin1String(refused));
        result = AwsCredentials::resolve(env, home.path());
        QVERIFY2(!result.ok(), refused);
        QVERIFY2(result.error.startsWith(QStringLiteral("AWS_CONTAINER_CREDENTIALS_FULL_URI names ")),
                 qPrintable(result.error));
        QVERIFY(!result.error.contains(QStringLiteral("private")));
        QVERIFY(result.credentials.containerEndpoint.isEmpty());
    }

    // The environment's keys and the profile's come first.
    env.insert(QStringLiteral("AWS_CONTAINER_CREDENTIALS_FULL_URI"), QStringLiteral("http://127.0.0.1:9/x"));
    env.insert(QStringLiteral("AWS_ACCESS_KEY_ID"), QStringLiteral("AKIDENV"));
    env.insert(QStringLiteral("AWS_SECRET_ACCESS_KEY"), QStringLiteral("fake-env-secret"));
    result = AwsCredentials::resolve(env, home.path());
    QCOMPARE(result.credentials.source, QStringLiteral("environment"));
    QVERIFY(result.credentials.containerEndpoint.isEmpty());
    env.remove(QStringLiteral("AWS_ACCESS_KEY_ID"));
    env.remove(QStringLiteral("AWS_SECRET_ACCESS_KEY"));
    writeFile(home.filePath(QStringLiteral(".aws/credentials")),
              "[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = fake-file-secret\n");
    result = AwsCredentials::resolve(env, home.path());
    QCOMPARE(result.credentials.accessKeyId, QStringLiteral("AKIDFILE"));
    QVERIFY(result.credentials.containerEndpoint.isEmpty());
}

// A role with credential_source = EcsContainer is asked with the container's keys; without a container
// endpoint it says so. (Ec2InstanceMetadata: unsupportedProfile and tst_bedrockprotocol.)
void TestSigV4Signer::ecsContainerProfile()
{
    QTemporaryDir home;
    writeFile(home.filePath(QStringLiteral(".aws/config")),
              "[profile ecs]\nrole_arn = arn:aws:iam::1234:role/dev\ncredential_source = EcsContainer\n"
              "[profile hop]\nrole_arn = arn:aws:iam::1234:role/dev\nsource_profile = empty\n"
              "[profile empty]\nregion = us-west-2\n");
    QProcessEnvironment env;
    env.insert(QStringLiteral("AWS_PROFILE"), QStringLiteral("ecs"));
    AwsCredentials::Result result = AwsCredentials::resolve(env, home.path());
    QVERIFY(!result.ok());
    QVERIFY2(result.error.contains(QStringLiteral("credential_source = EcsContainer, but neither "
                                                  "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")),
             qPrintable(result.error));
    QVERIFY(!result.error.contains(QStringLiteral("does not support")));

    env.insert(QStringLiteral("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"), QStringLiteral("/v2/credentials/x"));
    result = AwsCredentials::resolve(env, home.path());
    QVERIFY2(result.ok(), qPrintable(result.error));
    QVERIFY(result.credentials.assumeRole.fromContainer);
    QCOMPARE(result.credentials.assumeRole.roleArn, QStringLiteral("arn:aws:iam::1234:role/dev"));
    QCOMPARE(result.credentials.containerEndpoint, QStringLiteral("http://169.254.170.2/v2/credentials/x"));

    // A refused endpoint is refused for the role too.
    env.remove(QStringLiteral("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"));
    env.insert(QStringLiteral("AWS_CONTAINER_CREDENTIALS_FULL_URI"), QStringLiteral("http://192.0.2.10/x"));
    result = AwsCredentials::resolve(env, home.path());
    QVERIFY(!result.ok());
    QVERIFY2(result.error.contains(QStringLiteral("AWS_CONTAINER_CREDENTIALS_FULL_URI names")),
             qPrintable(result.error));

    // A source_profile without keys is not made up for by the container's keys (nothing is asked: the
    // loopback port 9 would refuse, and the error would say so).
    env.insert(QStringLiteral("AWS_CONTAINER_CREDENTIALS_FULL_URI"), QStringLiteral("http://127.0.0.1:9/x"));
    env.insert(QStringLiteral("AWS_PROFILE"), QStringLiteral("hop"));
    result = AwsCredentials::resolve(env, home.path());
    QVERIFY2(result.ok(), qPrintable(result.error));
    result = AwsCredentials::withKeys(result, env, home.path(), CancellationToken());
    QVERIFY(!result.ok());
    QVERIFY2(result.error.contains(QStringLiteral("The AWS profile \"empty\" has no keys")),
             qPrintable(result.error));
}

// Nothing configured: the EC2 instance's role is asked last (AwsInstanceMetadata), at the default address,
// the one AWS_EC2_METADATA_SERVICE_ENDPOINT names, or IPv6's; with it turned off, the error says what to set.
void TestSigV4Signer::nothingConfigured()
{
    QTemporaryDir home;
    QProcessEnvironment env;
    AwsCredentials::Result result = AwsCredentials::resolve(env, home.path());
    QVERIFY2(result.ok(), qPrintable(result.error));
    QVERIFY(!result.credentials.isValid());
    QCOMPARE(result.credentials.source, QStringLiteral("instance-metadata"));
    QCOMPARE(result.credentials.instanceMetadataEndpoint, QStringLiteral("http://169.254.169.254"));
    QCOMPARE(result.credentials.profile, QStringLiteral("default"));
    QCOMPARE(result.credentials.region, QStringLiteral("us-east-1"));
    env.insert(QStringLiteral("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE"), QStringLiteral("IPv6"));
    QCOMPARE(AwsCredentials::resolve(env, home.path()).credentials.instanceMetadataEndpoint,
             QStringLiteral("http://[fd00:ec2::254]"));
    env.insert(QStringLiteral("AWS_EC2_METADATA_SERVICE_ENDPOINT"), QStringLiteral("http://127.0.0.1:8111/"));
    QCOMPARE(AwsCredentials::resolve(env, home.path()).credentials.instanceMetadataEndpoint,
             QStringLiteral("http://127.0.0.1:8111"));
    env.insert(QStringLiteral("AWS_EC2_METADATA_DISABLED"), QStringLiteral("true"));
    result = AwsCredentials::resolve(env, home.path());
    QVERIFY(!result.ok());
    QVERIFY(result.error.contains(QStringLiteral("No AWS credentials found: set AWS_ACCESS_KEY_ID")));
    QVERIFY(result.credentials.instanceMetadataEndpoint.isEmpty());
}

QTEST_GUILESS_MAIN(TestSigV4Signer)
#include "tst_sigv4signer.moc"
