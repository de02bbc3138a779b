//! Mutated copies of template.yaml the check must refuse, each by name: proof that it reads what
//! it claims to (a needed grant, an attribute list, a `NotAction`). Each copy is written beside
//! the report, so `IAM_TEMPLATE=<copy>` shows its failure again.

use serde_yaml::Value;

/// One mutated copy, and what its failure must name (every string, in one failure).
pub struct Mutation {
    pub name: &'static str,
    pub template: Value,
    pub expect: Vec<&'static str>,
}

/// The statements of a SAM function's first inline policy, or of a role's first policy.
fn statements<'a>(template: &'a mut Value, resource: &str) -> &'a mut Vec<Value> {
    let props = &mut template["Resources"][resource]["Properties"];
    let policy = &mut props["Policies"][0];
    let document = if policy["PolicyDocument"].is_null() {
        policy
    } else {
        &mut policy["PolicyDocument"]
    };
    document["Statement"]
        .as_sequence_mut()
        .unwrap_or_else(|| panic!("{resource} has no policy statements to mutate"))
}

fn action_is(statement: &Value, action: &str) -> bool {
    statement["Action"].as_str() == Some(action)
}

pub fn all(template: &Value) -> Vec<Mutation> {
    let mut deleted = template.clone();
    let list = statements(&mut deleted, "EraseVerificationDataFunction");
    let before = list.len();
    list.retain(|s| !action_is(s, "dynamodb:DeleteItem"));
    assert_eq!(
        list.len() + 1,
        before,
        "erase-verification-data's one DeleteItem statement"
    );

    let mut widened = template.clone();
    let list = statements(&mut widened, "AnalyzeDocumentRole");
    let write = (list.iter_mut())
        .find(|s| s["Sid"].as_str() == Some("WriteDocuments"))
        .expect("analyze-document's WriteDocuments statement");
    let attributes = write["Condition"]["ForAllValues:StringEquals"]["dynamodb:Attributes"]
        .as_sequence_mut()
        .expect("its dynamodb:Attributes list");
    attributes.push(Value::from("status"));

    let mut not_action = template.clone();
    let added: Value =
        serde_yaml::from_str("{Effect: Allow, NotAction: 'iam:*', Resource: '*'}").unwrap();
    statements(&mut not_action, "GetVerificationFunction").push(added);

    vec![
        Mutation {
            name: "grant-deleted",
            template: deleted,
            expect: vec![
                "erase-verification-data: dynamodb:DeleteItem",
                "its role allows no such call",
            ],
        },
        Mutation {
            name: "attributes-widened",
            template: widened,
            expect: vec!["analyze-document", "WriteDocuments", "\"status\""],
        },
        Mutation {
            name: "not-action-added",
            template: not_action,
            expect: vec!["get-verification", "an Allow by NotAction"],
        },
    ]
}
