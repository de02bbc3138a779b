"""The Python peer of the cold-init benchmark: what a typical Python Lambda does at import time
(boto3, and a DynamoDB, an SESv2 and an SQS client built once per container), then the Runtime API
loop (what the managed runtime's bootstrap does), with urllib only.

The benchmark times process start to this loop's first GET .../invocation/next.
"""
import json
import os
import urllib.request

import boto3

dynamodb = boto3.client("dynamodb")
sesv2 = boto3.client("sesv2")
sqs = boto3.client("sqs")

RUNTIME = "http://" + os.environ["AWS_LAMBDA_RUNTIME_API"] + "/2018-06-01/runtime/invocation/"


def handler(event, context):
    return {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": "{}"}


def main():
    while True:
        with urllib.request.urlopen(RUNTIME + "next") as resp:
            request_id = resp.headers["Lambda-Runtime-Aws-Request-Id"]
            event = json.loads(resp.read())
        body = json.dumps(handler(event, None)).encode()
        req = urllib.request.Request(RUNTIME + request_id + "/response", data=body, method="POST")
        urllib.request.urlopen(req).read()


if __name__ == "__main__":
    main()
